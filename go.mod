module github.com/warpguard/warpguard

go 1.26

// Package shared holds what both checking engines of package race use:
// the site cache that names an access's kernel line and call stack from
// a few frame-pointer loads ([Sites]), the keys that tell memories of
// several devices apart ([MemKey]), the sink that keeps reports, drops
// repeats and halts a launch at its first race ([Sink]), and the
// numbering of threads and blocks ([DimIndex]). It imports no engine and
// no part of package race above the leaves race/kind and race/report.
package shared

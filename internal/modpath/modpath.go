// Package modpath names source files by their path inside their Go
// module, such as "race/racetest/example_test.go", so that reports read
// the same on every machine and checkout.
package modpath

import (
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Rel returns file, the source file of function (a fully qualified name
// as runtime.Frame.Function gives it), as a slash-separated path relative
// to the root of the module holding function's package. It returns file
// unchanged when that module is not among the program's build
// information (a program built outside module mode), or when file does
// not lie where the package path says it should.
func Rel(file, function string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return file
	}
	return rel(bi, file, function)
}

// rel is Rel under build information bi. A function of package main
// (named "main.f" whatever its directory) belongs to the program's main
// package, whose path bi gives, or a test binary's package under test.
func rel(bi *debug.BuildInfo, file, function string) string {
	pkg := Package(function)
	if pkg == "main" {
		pkg = mainPackage(bi)
	}
	if pkg == "" {
		return file
	}
	mod := module(bi, pkg)
	if mod == "" {
		return file
	}
	dir := strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/")
	slashed := filepath.ToSlash(file)
	rel := path.Join(dir, path.Base(slashed))
	if dir != "" && !strings.HasSuffix(slashed, "/"+rel) && slashed != rel {
		return file
	}
	return rel
}

// mainPackage returns the import path of the program's main package: of
// the package under test in a test binary, "" when the program was built
// from files named on the command line (go run main.go).
func mainPackage(bi *debug.BuildInfo) string {
	p := strings.TrimSuffix(bi.Path, ".test")
	if p == "command-line-arguments" {
		return ""
	}
	return p
}

// module returns the longest path of a module of bi that holds package
// pkg, or "".
func module(bi *debug.BuildInfo, pkg string) string {
	best := ""
	consider := func(m string) {
		if m != "" && len(m) > len(best) && (pkg == m || strings.HasPrefix(pkg, m+"/")) {
			best = m
		}
	}
	consider(bi.Main.Path)
	for _, d := range bi.Deps {
		consider(d.Path)
	}
	return best
}

// Package returns the import path of the package declaring function, a
// fully qualified function name such as
// "github.com/x/y/race.(*Detector).Access" or "github.com/x/y/gpu.F[...]",
// with an external test package's "_test" suffix removed (its files lie
// in the directory of the package it tests). It returns "" for a name
// with no package.
func Package(function string) string {
	if i := strings.IndexByte(function, '['); i >= 0 {
		function = function[:i] // type arguments may hold slashes and dots
	}
	slash := strings.LastIndexByte(function, '/')
	dot := strings.IndexByte(function[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return strings.TrimSuffix(function[:slash+1+dot], "_test")
}

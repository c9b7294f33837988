// Package modpath names source files by their path inside their Go
// module, such as "race/racetest/example_test.go", so that reports read
// the same on every machine and checkout.
package modpath

import (
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Rel returns file, the source file of function (a fully qualified name
// as runtime.Frame.Function gives it), as a slash-separated path relative
// to the root of the module holding function's package. The module is
// the longest of the program's build information that holds the package
// or, where none does (a test binary lists no dependencies), the one
// whose go.mod is the first found above file, if it holds the package.
// Rel returns file unchanged when no module holds the package, or when
// file does not lie where the package path says it should.
func Rel(file, function string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return rel(bi, file, function, os.ReadFile)
}

// rel is Rel under build information bi. A function of package main
// (named "main.f" whatever its directory) belongs to the program's main
// package, whose path bi gives, or a test binary's package under test.
func rel(bi *debug.BuildInfo, file, function string, read func(string) ([]byte, error)) string {
	pkg := Package(function)
	if pkg == "main" {
		pkg = mainPackage(bi)
	}
	if pkg == "" {
		return file
	}
	mod := module(bi, pkg)
	if mod == "" {
		return relAbove(file, pkg, read)
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

// relAbove returns file's path relative to the directory of the first
// go.mod above it, looking up at most as many directories as package pkg
// has elements, if that go.mod's module holds pkg and file lies where pkg
// says it should; else file. read reads a file.
func relAbove(file, pkg string, read func(string) ([]byte, error)) string {
	dir := filepath.Dir(file)
	for range strings.Count(pkg, "/") + 1 {
		if data, err := read(filepath.Join(dir, "go.mod")); err == nil {
			return relTo(dir, modulePath(data), file, pkg)
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return file
}

// relTo returns file's path relative to root, the directory of module
// mod, if mod holds package pkg and file is in pkg's directory; else
// file.
func relTo(root, mod, file, pkg string) string {
	if mod == "" || pkg != mod && !strings.HasPrefix(pkg, mod+"/") {
		return file
	}
	r, err := filepath.Rel(root, file)
	want := path.Join(strings.TrimPrefix(strings.TrimPrefix(pkg, mod), "/"), filepath.Base(file))
	if err != nil || filepath.ToSlash(r) != want {
		return file
	}
	return want
}

// modulePath returns the path a go.mod file's module directive names, or
// "" if it has none.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`+"`")
		}
	}
	return ""
}

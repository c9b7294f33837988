package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A command is a subcommand's flag set with its help: the synopsis after
// its name, and one paragraph on what it does.
type command struct {
	*flag.FlagSet
	synopsis, doc string
}

// newCommand returns subcommand name's flag set. Its errors go to stderr;
// -h and -help print its help, on the output parse is given.
func newCommand(name, synopsis, doc string, stderr io.Writer) *command {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // parse prints the help itself, on stdout
	return &command{FlagSet: fs, synopsis: synopsis, doc: doc}
}

// help writes c's help: usage line, paragraph, flags.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", strings.TrimSpace("warpguard "+c.Name()+" "+c.synopsis), wrap(c.doc, 80, ""))
	n := 0
	c.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprint(w, "\nflags:\n")
	c.VisitAll(func(f *flag.Flag) { writeFlag(w, f) })
}

// writeFlag writes f's help as flag.PrintDefaults does, its text wrapped
// at 80 columns under the name, so that long help keeps to a terminal.
func writeFlag(w io.Writer, f *flag.Flag) {
	typ, usage := flag.UnquoteUsage(f)
	fmt.Fprintln(w, strings.TrimRight("  -"+f.Name+" "+typ, " "))
	switch d := f.DefValue; {
	case d == "" || d == "0" || d == "false" || d == "0s":
	case typ == "string":
		usage += fmt.Sprintf(" (default %q)", d)
	default:
		usage += fmt.Sprintf(" (default %v)", d)
	}
	fmt.Fprintf(w, "        %s\n", wrap(usage, 80, "        "))
}

// parse parses args. It returns ok when the command should go on, and
// otherwise the exit code: exitOK after -h, whose help went to stdout;
// exitUsage after a bad flag, whose error went to stderr with a hint.
func (c *command) parse(args []string, stdout io.Writer) (code int, ok bool) {
	err := c.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		c.help(stdout)
		return exitOK, false
	}
	return c.usageError(nil), false
}

// usageError reports a command line that cannot run, err (if not nil)
// first, then where the help is, and returns exitUsage.
func (c *command) usageError(err error) int {
	if err != nil {
		fmt.Fprintf(c.Output(), "warpguard %s: %v\n", c.Name(), err)
	}
	fmt.Fprintf(c.Output(), "run 'warpguard %s -h' for help\n", c.Name())
	return exitUsage
}

// noArgs is a usage error when positional arguments are left.
func (c *command) noArgs() error {
	if c.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", c.Args())
	}
	return nil
}

// given reports whether c's command line set the flag name.
func (c *command) given(name string) bool {
	set := false
	c.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

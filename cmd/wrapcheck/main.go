// Command wrapcheck checks wrapper specifications: it explores every
// reachable state of a .wrap spec and prints the shortest counterexample
// to any violated check.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes.
const (
	exitHolds      = 0 // every check holds (or the command succeeded)
	exitViolated   = 1 // a violation was found
	exitUsage      = 2 // the spec or the command line is wrong
	exitIncomplete = 3 // the search stopped early with no violation found
)

// exitError carries an exit code through cobra's RunE.
type exitError struct {
	code int
	err  error // printed when non-nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// run is the whole program: it parses args, runs the subcommand, prints
// each error once and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitHolds
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, ee.err)
		}
		return ee.code
	}
	// cobra's own errors: unknown command, bad flag.
	fmt.Fprintf(stderr, "wrapcheck: %v\n", err)
	return exitUsage
}

// Command wrapcheck checks wrapper specifications: it explores every
// reachable state of a .wrap spec and prints the shortest counterexample
// to any violated check.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
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
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	root := newRootCmd(first)
	root.SetArgs(args)
	root.SetContext(context.WithValue(context.Background(), argvKey{}, args)) // for check --compile
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitHolds
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, escapeLines(ee.err.Error()))
		}
		return ee.code
	}
	// cobra's own errors: unknown command, bad flag; they quote the
	// command line, which may hold anything.
	if werr := writeError(stdout, stderr, formatArg(args), "", err); werr != nil {
		fmt.Fprintln(stderr, werr)
	}
	fmt.Fprintf(stderr, "wrapcheck: %s\n", cobraErrorText(err.Error()))
	return exitUsage
}

// cobraSuggest is what cobra puts between an unknown command and the
// commands whose names are near it.
const cobraSuggest = "\n\nDid you mean this?\n"

// cobraErrorText is an error of cobra's, escaped: its suggestions (our
// own command names, one a line after a tab) keep their lines; the rest,
// which quotes the command line, is one line.
func cobraErrorText(msg string) string {
	head, tail, ok := strings.Cut(msg, cobraSuggest)
	if !ok || !strings.HasPrefix(head, "unknown command ") {
		return report.Escape(msg)
	}
	var b strings.Builder
	b.WriteString(report.Escape(head) + strings.TrimSuffix(cobraSuggest, "\n"))
	for _, l := range strings.Split(strings.TrimRight(tail, "\n"), "\n") {
		b.WriteString("\n\t" + report.Escape(strings.TrimSpace(l)))
	}
	return b.String()
}

// escapeLines escapes the control characters of an error message, line
// by line (an error list has one error a line, secondary lines start with
// a tab), so that whatever user data it quotes sends no terminal escape;
// a line starting with "::" (a CI workflow command, even after spaces)
// has its first colon spaced out.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		tab := strings.HasPrefix(l, "\t")
		l = report.Escape(strings.TrimPrefix(l, "\t"))
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "::") {
			l = l[:len(l)-len(t)] + ": " + t[1:]
		}
		if tab {
			l = "\t" + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

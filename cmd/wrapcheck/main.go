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
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
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
			fmt.Fprintln(stderr, errorText(ee.err))
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

// escapeLines is [errorText] of an error whose message is s.
func escapeLines(s string) string { return errorText(errors.New(s)) }

// errorText is the text of err as it is printed: one line, with every
// character that could act on a terminal or a log reader escaped
// ([report.Escape]), so that no newline of the user data it quotes (a
// name from a run file, a file name, a flag value) starts a line of its
// own; the front end's errors keep their structure, one error a line and
// its secondary lines after a tab, each escaped. A line that would start
// a CI workflow command ("::", even after spaces, or "##" of the legacy
// and Azure forms) has its first character spaced out.
func errorText(err error) string {
	msg := err.Error()
	var lines []string
	var list spec.ErrorList
	var one *syntax.Error
	switch {
	case errors.As(err, &list) && strings.HasSuffix(msg, list.Error()):
		lines = frontLines(strings.TrimSuffix(msg, list.Error()), list)
	case errors.As(err, &one) && strings.HasSuffix(msg, one.Error()):
		lines = frontLines(strings.TrimSuffix(msg, one.Error()), syntax.ErrorList{one})
	default:
		lines = []string{report.Escape(msg)}
	}
	for i, l := range lines {
		lines[i] = defuse(l)
	}
	return strings.Join(lines, "\n")
}

// frontLines are the lines of a front-end error list, after prefix (the
// text that wraps it): one a line, each secondary line after a tab.
func frontLines(prefix string, list syntax.ErrorList) []string {
	var lines []string
	for i, e := range list {
		if i == syntax.MaxErrors {
			lines = append(lines, "too many errors")
			break
		}
		l := report.Escape(e.Pos.String() + ": " + e.Msg)
		if i == 0 {
			l = report.Escape(prefix) + l
		}
		lines = append(lines, l)
		for _, n := range e.Secondary {
			lines = append(lines, "\t"+report.Escape(n.Pos.String()+": "+n.Msg))
		}
	}
	return lines
}

// defuse spaces out the first character of a line that would start a CI
// workflow command: "::" (GitHub), "##[" or "##vso[" (GitHub's legacy
// form, Azure Pipelines), even after spaces.
func defuse(l string) string {
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##") {
		return l[:len(l)-len(t)] + t[:1] + " " + t[1:]
	}
	return l
}

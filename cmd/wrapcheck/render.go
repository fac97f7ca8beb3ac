package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// renderFunc prints a checker.Result in one output format.
type renderFunc func(io.Writer, *spec.Model, *checker.Result) error

// formatNames lists the --format values of `check`, in help order.
var formatNames = []string{"text", "json", "sarif", "junit", "mermaid", "dot"}

// newRenderer returns the renderer for `check --format`: every format is
// a rendering of the same checker.Result. Text is coloured only when
// stdout is a terminal and NO_COLOR is unset.
func newRenderer(cmd *cobra.Command, f checkFlags) (renderFunc, error) {
	switch f.format {
	case "text":
		return report.TextOptions{Color: isColorTerminal(cmd.OutOrStdout()), Explain: true}.Render, nil
	case "json":
		return report.JSON, nil
	case "sarif":
		return report.SARIF, nil
	case "junit":
		return report.JUnitOptions{Only: f.only, NoDeadlock: f.noDeadlock}.Render, nil
	case "mermaid":
		return report.Mermaid, nil
	case "dot":
		return report.DOT, nil
	}
	return nil, &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text or json, or one of %s", report.Escape(f.format), strings.Join(formatNames[2:], ", "))}
}

// isColorTerminal reports whether w is a terminal (a character device)
// and NO_COLOR is unset.
func isColorTerminal(w io.Writer) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// annotate prints a GitHub Actions error annotation for a violation on
// stderr when running under GitHub Actions (GITHUB_ACTIONS=true).
func annotate(cmd *cobra.Command, m *spec.Model, res *checker.Result) error {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return report.GitHub(cmd.ErrOrStderr(), m, res)
}

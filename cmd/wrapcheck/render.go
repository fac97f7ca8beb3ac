package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// renderFunc prints a verdict.Result in one output format, with vet's
// warnings about the spec; prog is the model compiled for the search.
type renderFunc func(w io.Writer, m *spec.Model, prog *machine.Program, res *verdict.Result, vet []report.Diagnostic) error

// formatNames lists the --format values of `check`, in help order.
var formatNames = []string{"text", "json", "sarif", "junit", "mermaid", "dot", "itf"}

// newRenderer returns the renderer for `check --format`: every format is
// a rendering of the same verdict.Result. Text is coloured only when
// stdout is a terminal and NO_COLOR is unset.
func newRenderer(cmd *cobra.Command, f checkFlags) (renderFunc, error) {
	switch f.format {
	case "text":
		return textRenderer(cmd, f, nil), nil
	case "json":
		return func(w io.Writer, m *spec.Model, prog *machine.Program, res *verdict.Result, vet []report.Diagnostic) error {
			return report.JSONOptions{Warnings: vet, Strict: f.strict}.Render(w, m, res)
		}, nil
	case "sarif":
		return func(w io.Writer, m *spec.Model, prog *machine.Program, res *verdict.Result, vet []report.Diagnostic) error {
			return report.SARIFOptions{Warnings: vet, Strict: f.strict, ToolVersion: toolVersion()}.Render(w, m, res)
		}, nil
	case "junit":
		return func(w io.Writer, m *spec.Model, prog *machine.Program, res *verdict.Result, vet []report.Diagnostic) error {
			return report.JUnitOptions{Only: f.only, NoDeadlock: f.noDeadlock, Warnings: vet, Strict: f.strict}.Render(w, m, res)
		}, nil
	case "mermaid":
		return func(w io.Writer, m *spec.Model, _ *machine.Program, res *verdict.Result, _ []report.Diagnostic) error {
			return report.Mermaid(w, m, res)
		}, nil
	case "dot":
		return func(w io.Writer, m *spec.Model, _ *machine.Program, res *verdict.Result, _ []report.Diagnostic) error {
			return report.DOT(w, m, res)
		}, nil
	case "itf":
		return func(w io.Writer, m *spec.Model, _ *machine.Program, res *verdict.Result, _ []report.Diagnostic) error {
			return report.ITF(w, m, res)
		}, nil
	}
	return nil, &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text or json, or one of %s", report.Escape(f.format), strings.Join(formatNames[2:], ", "))}
}

// textRenderer is the renderer of `check --format text`, which prints
// cov (--coverage) when it is not nil.
func textRenderer(cmd *cobra.Command, f checkFlags, cov *verdict.ActionCoverage) renderFunc {
	color := isColorTerminal(cmd.OutOrStdout())
	return func(w io.Writer, m *spec.Model, prog *machine.Program, res *verdict.Result, vet []report.Diagnostic) error {
		return report.TextOptions{Color: color, Explain: true, Warnings: vet, Strict: f.strict, Program: prog,
			FullStates: f.fullStates, Coverage: cov}.Render(w, m, res)
	}
}

// renderError renders the error outcome of a run that did not search (the
// spec or the command line is wrong) in the chosen format on stdout --
// JSON, SARIF and JUnit; text, Mermaid and DOT print nothing there -- and
// as GitHub annotations under GitHub Actions, and returns err, whose text
// run prints on stderr. file is the spec file ("" when unknown).
func renderError(cmd *cobra.Command, format, file string, err error) error {
	if werr := writeError(cmd.OutOrStdout(), cmd.ErrOrStderr(), format, file, err); werr != nil {
		return werr
	}
	return err
}

// writeError writes the error outcome of err as renderError does.
func writeError(stdout, stderr io.Writer, format, file string, err error) error {
	r := report.ErrorReport{File: file, Errors: report.Diagnostics(err), ToolVersion: toolVersion()}
	var werr error
	switch format {
	case "json":
		werr = r.JSON(stdout)
	case "sarif":
		werr = r.SARIF(stdout)
	case "junit":
		werr = r.JUnit(stdout)
	}
	if werr == nil && os.Getenv("GITHUB_ACTIONS") == "true" {
		werr = r.GitHub(stderr)
	}
	return werr
}

// formatArg returns the --format value of a `check` command line that
// cobra refused (an unknown flag, a missing argument), "" when there is
// none, so that the error still comes out in that format.
func formatArg(args []string) string {
	if len(args) == 0 || args[0] != "check" {
		return ""
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--format="); ok {
			return v
		}
		if a == "--format" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// toolVersion is the version `wrapcheck version` prints.
func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
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

// annotate prints a GitHub Actions error annotation per violation on
// stderr when running under GitHub Actions (GITHUB_ACTIONS=true).
func annotate(cmd *cobra.Command, m *spec.Model, res *verdict.Result) error {
	return annotateWarnings(cmd, m, res, nil, false)
}

// annotateWarnings is annotate with a warning annotation (an error under
// --strict) per warning: the search's and vet's.
func annotateWarnings(cmd *cobra.Command, m *spec.Model, res *verdict.Result, vet []report.Diagnostic, strict bool) error {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return report.GitHubOptions{Warnings: vet, Strict: strict}.Render(cmd.ErrOrStderr(), m, res)
}

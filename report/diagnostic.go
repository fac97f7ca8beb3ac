package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Diagnostic is a positioned message about the input: one error that makes
// the spec or the command line wrong, or one warning about the spec.
type Diagnostic struct {
	Pos spec.Position // the zero Position for a command-line error
	Msg string
}

// String formats d as "file:line:col: msg" (just msg without a position).
func (d Diagnostic) String() string {
	if !d.Pos.IsValid() {
		return d.Msg
	}
	return d.Pos.String() + ": " + d.Msg
}

// Diagnostics returns the errors that err holds: one per error of a
// spec.ErrorList or *spec.Error, each with its secondary lines in its
// message; otherwise err's text, without a position.
func Diagnostics(err error) []Diagnostic {
	var list spec.ErrorList
	var one *spec.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = spec.ErrorList{one}
	default:
		return []Diagnostic{{Msg: err.Error()}}
	}
	var ds []Diagnostic
	for i, e := range list {
		if i == syntax.MaxErrors {
			ds = append(ds, Diagnostic{Msg: "too many errors"})
			break
		}
		msg := e.Msg
		for _, n := range e.Secondary {
			msg += "\n\t" + n.Pos.String() + ": " + n.Msg
		}
		ds = append(ds, Diagnostic{Pos: e.Pos, Msg: msg})
	}
	return ds
}

// CoverageWarnings returns the warnings the search of res found: each
// action that never fired and each invariant that holds vacuously (its
// antecedent never held). They are meaningful only when the search
// explored every reachable state ([Complete]); otherwise there are none.
func CoverageWarnings(m *spec.Model, res *verdict.Result) []Diagnostic {
	if !Complete(res) {
		return nil
	}
	var ws []Diagnostic
	for i, a := range m.Actions {
		if i < len(res.Coverage.Fired) && res.Coverage.Fired[i] == 0 {
			ws = append(ws, Diagnostic{Pos: a.Pos, Msg: "action " + a.Name + " never fired"})
		}
	}
	for _, name := range res.Coverage.VacuousInvariants {
		for _, in := range m.Invariants {
			if in.Name == name {
				ws = append(ws, Diagnostic{Pos: in.Pos, Msg: "invariant " + name + " holds vacuously: its antecedent never held"})
			}
		}
	}
	return ws
}

// allWarnings returns the coverage warnings of res and the others, in
// the order of their positions (stable).
func allWarnings(m *spec.Model, res *verdict.Result, others []Diagnostic) []Diagnostic {
	ws := append(CoverageWarnings(m, res), others...)
	slices.SortStableFunc(ws, func(a, b Diagnostic) int {
		switch {
		case a.Pos.Before(b.Pos):
			return -1
		case b.Pos.Before(a.Pos):
			return 1
		}
		return 0
	})
	return ws
}

// ErrorReport is the outcome of a run that did not search: the spec or
// the command line is wrong (exit code 2).
type ErrorReport struct {
	File   string       // the spec file, as displayed; "" when unknown
	Errors []Diagnostic // at least one
	// ToolVersion is the wrapcheck version, for SARIF.
	ToolVersion string
}

// usage reports whether the errors are the command line's (none has a
// position).
func (r ErrorReport) usage() bool {
	for _, d := range r.Errors {
		if d.Pos.IsValid() {
			return false
		}
	}
	return true
}

// JSON writes r as the JSON object of an error outcome: "verdict":
// "error" and the positioned errors (docs/json-schema.json, $defs/error).
func (r ErrorReport) JSON(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	field(&b, "format", fmt.Sprint(FormatVersion))
	if r.File != "" {
		field(&b, "file", jsonString(r.File))
	}
	field(&b, "verdict", jsonString("error"))
	b.WriteString(`  "errors": [`)
	for i, d := range r.Errors {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    " + diagnosticJSON(d))
	}
	b.WriteString("\n  ]\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// diagnosticJSON writes d as {"position": "f:l:c", "message": "..."}
// (position null without one).
func diagnosticJSON(d Diagnostic) string {
	pos := "null"
	if d.Pos.IsValid() {
		pos = jsonString(d.Pos.String())
	}
	return `{"position": ` + pos + `, "message": ` + jsonString(d.Msg) + "}"
}

// SARIF writes r as a SARIF log whose run has one result, level error, per
// error (rule "spec-error", or "usage-error" for the command line), located
// at its region, and an invocation that did not succeed.
func (r ErrorReport) SARIF(w io.Writer) error {
	rule := "spec-error"
	text := "the spec is well-formed and well-typed"
	if r.usage() {
		rule, text = "usage-error", "the command line is valid"
	}
	run := newSARIFRun(r.ToolVersion, []sarifRule{{ID: rule, Name: rule, ShortDescription: sarifMessage{Text: text},
		DefaultConfiguration: sarifConfig{Level: "error"}}})
	run.Properties = map[string]any{"verdict": "error"}
	if r.File != "" {
		run.Artifacts = []sarifArtifact{{Location: sarifArtifactLocation{URI: r.File, URIBaseID: sarifBase}}}
	}
	inv := sarifInvocation{ExecutionSuccessful: false}
	for _, d := range r.Errors {
		res := sarifResult{RuleID: rule, Level: "error", Message: sarifMessage{Text: Escape(d.Msg)}, Locations: []sarifLocation{}}
		switch {
		case d.Pos.IsValid():
			res.Locations = []sarifLocation{sarifLocationAt(d.Pos, "")}
		case r.File != "":
			res.Locations = []sarifLocation{sarifLocationAt(spec.Position{Filename: r.File, Line: 1, Col: 1}, "")}
		}
		run.Results = append(run.Results, res)
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifMessage{Text: Escape(d.String())}})
	}
	run.Invocations = []sarifInvocation{inv}
	return writeSARIF(w, run)
}

// JUnit writes r as a JUnit report with one testsuite (the file) and one
// testcase "spec" holding an <error> per error.
func (r ErrorReport) JUnit(w io.Writer) error {
	name := r.File
	if name == "" {
		name = "wrapcheck"
	}
	tc := junitCase{Name: "spec", Classname: xmlText(name), Time: "0"}
	if r.File != "" {
		tc.File = xmlText(r.File)
	}
	var lines []string
	for _, d := range r.Errors {
		lines = append(lines, Escape(d.String()))
	}
	kind := "spec-error"
	if r.usage() {
		kind = "usage-error"
	}
	tc.Error = &junitFailure{Message: xmlText(lines[0]), Type: kind, Text: xmlText(strings.Join(lines, "\n") + "\n")}
	suite := junitSuite{Name: xmlText(name), Tests: 1, Errors: 1, Time: "0.000",
		Properties: []junitProperty{{"verdict", "error"}}, Cases: []junitCase{tc}}
	root := junitSuites{Name: "wrapcheck", Tests: 1, Errors: 1, Time: "0.000", Suites: []junitSuite{suite}}
	return writeJUnit(w, root)
}

// GitHub writes one `::error` workflow command per error, at its position
// (the top of the file, or no file, for a command-line error).
func (r ErrorReport) GitHub(w io.Writer) error {
	for _, d := range r.Errors {
		title := "wrapcheck: spec error"
		if !d.Pos.IsValid() {
			title = "wrapcheck: usage error"
		}
		loc := ""
		switch {
		case d.Pos.IsValid():
			loc = fmt.Sprintf(" file=%s,line=%d,col=%d,", ghProperty(Escape(d.Pos.Filename)), d.Pos.Line, d.Pos.Col)
		case r.File != "":
			loc = fmt.Sprintf(" file=%s,", ghProperty(Escape(r.File)))
		default:
			loc = " "
		}
		if _, err := fmt.Fprintf(w, "::error%stitle=%s::%s\n", loc, ghProperty(title), ghData(Escape(d.Msg))); err != nil {
			return err
		}
	}
	return nil
}

// githubWarnings writes one `::warning` workflow command per warning.
func githubWarnings(w io.Writer, ws []Diagnostic, strict bool) error {
	cmd := "warning"
	if strict {
		cmd = "error"
	}
	for _, d := range ws {
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd, ghProperty(Escape(d.Pos.Filename)), d.Pos.Line, d.Pos.Col,
			ghProperty("wrapcheck: warning"), ghData(Escape(d.Msg))); err != nil {
			return err
		}
	}
	return nil
}

// writeJUnit writes root with the XML header.
func writeJUnit(w io.Writer, root junitSuites) error {
	b, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeSARIF writes a SARIF log with one run.
func writeSARIF(w io.Writer, run sarifRun) error {
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MergeSARIF writes the SARIF logs of docs (one per checked file, each
// with one run) as one log with their runs in order.
func MergeSARIF(w io.Writer, docs [][]byte) error {
	var runs []json.RawMessage
	for _, d := range docs {
		var log struct {
			Runs []json.RawMessage `json:"runs"`
		}
		if err := json.Unmarshal(d, &log); err != nil {
			return fmt.Errorf("wrapcheck internal error: merging SARIF: %v", err)
		}
		runs = append(runs, log.Runs...)
	}
	log := struct {
		Schema  string            `json:"$schema"`
		Version string            `json:"version"`
		Runs    []json.RawMessage `json:"runs"`
	}{"https://json.schemastore.org/sarif-2.1.0.json", "2.1.0", runs}
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// MergeJUnit writes the JUnit reports of docs (one per checked file) as
// one report with their testsuites in order and the totals summed.
func MergeJUnit(w io.Writer, docs [][]byte) error {
	root := junitSuites{Name: "wrapcheck"}
	var secs float64
	for _, d := range docs {
		var one junitSuites
		if err := xml.Unmarshal(d, &one); err != nil {
			return fmt.Errorf("wrapcheck internal error: merging JUnit: %v", err)
		}
		root.Tests += one.Tests
		root.Failures += one.Failures
		root.Errors += one.Errors
		root.Skipped += one.Skipped
		for _, s := range one.Suites {
			var t float64
			fmt.Sscan(s.Time, &t)
			secs += t
		}
		root.Suites = append(root.Suites, one.Suites...)
	}
	root.Time = fmt.Sprintf("%.3f", secs)
	return writeJUnit(w, root)
}

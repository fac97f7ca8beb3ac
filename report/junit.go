package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// JUnit writes res as a JUnit XML report with [JUnitOptions] zero value:
// every check selected, deadlock detection on.
func JUnit(w io.Writer, m *spec.Model, res *verdict.Result) error {
	return JUnitOptions{}.Render(w, m, res)
}

// JUnitOptions says which checks the run selected, so that the report
// can mark the others skipped. The zero value: every check, deadlocks
// included.
type JUnitOptions struct {
	Only       []string // the --only names; empty: every check
	NoDeadlock bool     // --no-deadlock
	// Warnings are warnings about the spec besides the search's own; a
	// testcase "warnings" lists them all, failed under Strict.
	Warnings []Diagnostic
	Strict   bool
}

// Render writes res as JUnit XML: one testsuite for the spec, one
// testcase per invariant, per property and for deadlock freedom (plus one
// per failed assertion or runtime error), each passed, failed (with the
// trace as text) or skipped: not selected, or not decided because the
// search stopped early (a limit, or at the level of the first violation
// without --continue) or did not search the properties.
func (o JUnitOptions) Render(w io.Writer, m *spec.Model, res *verdict.Result) error {
	type check struct {
		kind verdict.Kind
		name string
		pos  spec.Position
	}
	var checks []check
	for _, in := range m.Invariants {
		checks = append(checks, check{verdict.Invariant, in.Name, in.Pos})
	}
	deadlockPos := m.TerminalPos
	if !deadlockPos.IsValid() {
		deadlockPos = m.NamePos
	}
	checks = append(checks, check{verdict.Deadlock, "", deadlockPos})
	for _, p := range m.Properties {
		checks = append(checks, check{verdict.Property, p.Name, p.Pos})
	}
	vs := Violations(res)
	for _, v := range vs {
		if v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError {
			checks = append(checks, check{v.Kind, v.Name, v.Pos})
		}
	}
	selected := func(c check) bool {
		switch c.kind {
		case verdict.Deadlock:
			return !o.NoDeadlock
		case verdict.Invariant, verdict.Property:
			return len(o.Only) == 0 || slices.Contains(o.Only, c.name)
		}
		return true
	}
	violation := func(c check) *verdict.Violation {
		for _, v := range vs {
			if v.Kind == c.kind && (c.kind == verdict.Deadlock || v.Name == c.name && (c.kind == verdict.Invariant || c.kind == verdict.Property || v.Pos == c.pos)) {
				return v
			}
		}
		return nil
	}
	suite := junitSuite{
		Name:      xmlText(m.Name),
		Timestamp: "",
		Time:      strconv.FormatFloat(res.Stats.Seconds, 'f', 3, 64),
		Properties: []junitProperty{
			{"verdict", res.Verdict.String()},
			{"states", strconv.FormatInt(res.Stats.States, 10)},
			{"transitions", strconv.FormatInt(res.Stats.Transitions, 10)},
			{"depth", strconv.Itoa(res.Stats.Depth)},
			{"complete", strconv.FormatBool(Complete(res))},
		},
	}
	if res.Reason() != "" {
		suite.Properties = append(suite.Properties, junitProperty{"reason", res.Reason()})
	}
	for _, c := range checks {
		tc := junitCase{Name: xmlText(checkTitle(c.kind, c.name)), Classname: xmlText(m.Name), Time: "0"}
		if c.pos.IsValid() {
			tc.File, tc.Line = xmlText(c.pos.Filename), c.pos.Line
		}
		v := violation(c)
		switch {
		case !selected(c):
			why := "not selected by --only"
			if c.kind == verdict.Deadlock {
				why = "deadlock detection is off (--no-deadlock)"
			}
			tc.Skipped = &junitSkipped{Message: why}
		case v != nil:
			var b strings.Builder
			b.WriteString(Headline(m, v) + "\n")
			TextOptions{}.writeTrace(&b, m, v, nil)
			writeReads(&b, m, v)
			msg := Headline(m, v)
			if v.Msg != "" && v.Kind == verdict.Property {
				msg += ": " + Escape(v.Msg)
			}
			tc.Failure = &junitFailure{Message: xmlText(msg), Type: v.Kind.String(), Text: xmlText(b.String())}
		case res.Verdict == verdict.Unknown:
			tc.Skipped = &junitSkipped{Message: "not decided: the search stopped early (" + res.Reason() + ") with no violation found"}
		case res.Stop == verdict.StopAtViolation:
			tc.Skipped = &junitSkipped{Message: "not decided: the search stopped at the end of the level of the first violation (--continue decides every check)"}
		case c.kind == verdict.Property && slices.Contains(res.Undecided, c.name):
			tc.Skipped = &junitSkipped{Message: "not decided: the properties are searched when the safety checks hold, or the search met a failure on the way (--continue searches them all)"}
		}
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Skipped != nil:
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if ws := allWarnings(m, res, o.Warnings); len(ws) > 0 {
		var lines []string
		for _, d := range ws {
			lines = append(lines, "warning: "+Escape(d.String()))
		}
		text := xmlText(strings.Join(lines, "\n") + "\n")
		tc := junitCase{Name: "warnings", Classname: xmlText(m.Name), Time: "0", SystemOut: &junitText{text}}
		if o.Strict {
			tc.Failure = &junitFailure{Message: xmlText(fmt.Sprintf("%d warnings (--strict)", len(ws))), Type: "warning", Text: text}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	root := junitSuites{Name: "wrapcheck", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	return writeJUnit(w, root)
}

// xmlText returns s without the characters XML 1.0 forbids (control
// characters other than tab, newline and carriage return, lone
// surrogates, U+FFFE and U+FFFF), which no XML parser accepts even as
// character references; they are written as [Escape] writes them.
func xmlText(s string) string {
	ok := func(r rune) bool {
		return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return !ok(r) }) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if ok(r) {
			b.WriteRune(r)
			continue
		}
		if e := Escape(string(r)); e != string(r) {
			b.WriteString(e)
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// checkTitle names a check for people: "invariant X", "deadlock",
// "assertion in action A".
func checkTitle(k verdict.Kind, name string) string {
	switch k {
	case verdict.Deadlock:
		return "deadlock"
	case verdict.Assertion, verdict.RuntimeError:
		return fmt.Sprintf("%s in action %s", strings.ReplaceAll(k.String(), "-", " "), name)
	}
	return k.String() + " " + name
}

type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr,omitempty"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure"`
		Error     *junitFailure `xml:"error"`
		Skipped   *junitSkipped `xml:"skipped"`
		SystemOut *junitText    `xml:"system-out"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	junitText struct {
		Text string `xml:",cdata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

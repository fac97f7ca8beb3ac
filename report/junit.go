package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// JUnit writes res as a JUnit XML report with [JUnitOptions] zero value:
// every check selected, deadlock detection on.
func JUnit(w io.Writer, m *spec.Model, res *checker.Result) error {
	return JUnitOptions{}.Render(w, m, res)
}

// JUnitOptions says which checks the run selected, so that the report
// can mark the others skipped. The zero value: every check, deadlocks
// included.
type JUnitOptions struct {
	Only       []string // the --only names; empty: every check
	NoDeadlock bool     // --no-deadlock
}

// Render writes res as JUnit XML: one testsuite for the spec, one
// testcase per invariant, per property and for deadlock freedom (plus one
// for a failed assertion or runtime error), each passed, failed (with the
// trace as text) or skipped: not selected, or not reached because the
// search stopped early (a limit, or at the first violation).
func (o JUnitOptions) Render(w io.Writer, m *spec.Model, res *checker.Result) error {
	type check struct {
		kind checker.Kind
		name string
		pos  spec.Position
	}
	var checks []check
	for _, in := range m.Invariants {
		checks = append(checks, check{checker.Invariant, in.Name, in.Pos})
	}
	checks = append(checks, check{checker.Deadlock, "", m.TerminalPos})
	for _, p := range m.Properties {
		checks = append(checks, check{checker.Property, p.Name, p.Pos})
	}
	v := res.Violation
	if res.Verdict != checker.Violated {
		v = nil
	}
	if v != nil && (v.Kind == checker.Assertion || v.Kind == checker.RuntimeError) {
		checks = append(checks, check{v.Kind, v.Name, v.Pos})
	}
	selected := func(c check) bool {
		switch c.kind {
		case checker.Deadlock:
			return !o.NoDeadlock
		case checker.Invariant, checker.Property:
			return len(o.Only) == 0 || slices.Contains(o.Only, c.name)
		}
		return true
	}
	suite := junitSuite{
		Name:      m.Name,
		Timestamp: "",
		Time:      strconv.FormatFloat(res.Stats.Seconds, 'f', 3, 64),
		Properties: []junitProperty{
			{"verdict", res.Verdict.String()},
			{"states", strconv.FormatInt(res.Stats.States, 10)},
			{"transitions", strconv.FormatInt(res.Stats.Transitions, 10)},
			{"depth", strconv.Itoa(res.Stats.Depth)},
		},
	}
	if res.Reason != "" {
		suite.Properties = append(suite.Properties, junitProperty{"reason", res.Reason})
	}
	pastViolated := false
	for _, c := range checks {
		tc := junitCase{Name: checkTitle(c.kind, c.name), Classname: m.Name, Time: "0"}
		if c.pos.IsValid() {
			tc.File, tc.Line = c.pos.Filename, c.pos.Line
		}
		isViolated := v != nil && v.Kind == c.kind && (v.Name == c.name || c.kind == checker.Deadlock)
		switch {
		case !selected(c):
			why := "not selected by --only"
			if c.kind == checker.Deadlock {
				why = "deadlock detection is off (--no-deadlock)"
			}
			tc.Skipped = &junitSkipped{Message: why}
		case isViolated:
			var b strings.Builder
			b.WriteString(Headline(m, v) + "\n")
			TextOptions{}.writeTrace(&b, m, v)
			writeReads(&b, m, v)
			msg := Headline(m, v)
			if v.Msg != "" && v.Kind == checker.Property {
				msg += ": " + v.Msg
			}
			tc.Failure = &junitFailure{Message: msg, Type: v.Kind.String(), Text: b.String()}
			if c.kind == checker.Property {
				pastViolated = true
			}
		case res.Verdict == checker.Unknown:
			tc.Skipped = &junitSkipped{Message: "not reached: the search stopped early (" + res.Reason + ") with no violation found"}
		case v == nil:
			// holds
		case v.Kind == checker.Property && c.kind != checker.Property:
			// safety was checked to completion before the properties
		case v.Kind == checker.Property && !pastViolated:
			// checked, in declaration order, before the violated property
		case v.Kind == checker.Property:
			tc.Skipped = &junitSkipped{Message: "not reached: the search stops at the first violated property"}
		default:
			tc.Skipped = &junitSkipped{Message: "not reached: the search stopped at the first violation"}
		}
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Skipped != nil:
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	root := junitSuites{Name: "wrapcheck", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
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

// checkTitle names a check for people: "invariant X", "deadlock",
// "assertion in action A".
func checkTitle(k checker.Kind, name string) string {
	switch k {
	case checker.Deadlock:
		return "deadlock"
	case checker.Assertion, checker.RuntimeError:
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
		Skipped   *junitSkipped `xml:"skipped"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// GitHub writes a GitHub Actions workflow command for each violation of
// res (nothing when every check holds or the search was incomplete):
//
//	::error file=F,line=L,col=C,title=T::message
//
// located at the violated check, titled with its kind and name, the
// message holding the headline and the trace, one step a line. The CLI
// prints it on stderr when GITHUB_ACTIONS=true, beside the chosen format.
func GitHub(w io.Writer, m *spec.Model, res *verdict.Result) error {
	return GitHubOptions{}.Render(w, m, res)
}

// GitHubOptions configures the GitHub annotations. The zero value: no vet
// warnings, not strict.
type GitHubOptions struct {
	// Warnings are warnings about the spec besides the search's own.
	Warnings []Diagnostic
	// Strict makes the warnings' annotations errors.
	Strict bool
}

// Render writes an `::error` command per violation of res, then a
// `::warning` command (`::error` under Strict) per warning.
func (o GitHubOptions) Render(w io.Writer, m *spec.Model, res *verdict.Result) error {
	for _, v := range Violations(res) {
		if err := githubViolation(w, m, v); err != nil {
			return err
		}
	}
	return githubWarnings(w, allWarnings(m, res, o.Warnings), o.Strict)
}

// githubViolation writes the error command of one violation.
func githubViolation(w io.Writer, m *spec.Model, v *verdict.Violation) error {
	p := checkPos(m, v)
	lines := []string{Headline(m, v)}
	if v.Msg != "" && v.Kind == verdict.Property {
		lines[0] += ": " + Escape(v.Msg)
	}
	watches := traceWatches(m, nil, v.Trace)
	for i := range v.Trace {
		marker := ""
		if i == v.LoopStart {
			marker = " (the cycle starts here)"
		}
		if watches != nil {
			marker += "; " + strings.Join(watchLines(m, watches[i]), ", ")
		}
		lines = append(lines, fmt.Sprintf("%d. %s%s", i, stepSummary(m, v.Trace, i), marker))
	}
	title := "wrapcheck: " + Escape(checkTitle(v.Kind, v.Name))
	_, err := fmt.Fprintf(w, "::error file=%s,line=%d,col=%d,title=%s::%s\n",
		ghProperty(Escape(p.Filename)), p.Line, p.Col, ghProperty(title), ghData(strings.Join(lines, "\n")))
	return err
}

// ghData escapes the message of a workflow command.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value of a workflow command.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// FormatVersion is the version of the JSON output of [Result.JSON]
// ("format"). Fields may be added within a version, never renamed.
const FormatVersion = 1

// Names gives the file names the renderings print for OLD and NEW.
type Names struct{ Old, New string }

// model returns the spec of side name ("old" or "new").
func (r *Result) model(name string) *spec.Model {
	if name == "old" {
		return r.Old
	}
	return r.New
}

// Summary says in one line what the comparison found.
func (r *Result) Summary() string {
	switch {
	case r.OldOnly.Trace != nil || r.NewOnly.Trace != nil:
		return "the behaviours differ"
	case r.Differ() && (r.OldOnly.Incomplete || r.NewOnly.Incomplete):
		return "verdicts differ; no behaviour difference found, but the search is incomplete"
	case r.Differ():
		return "the same observed behaviours, but verdicts differ"
	case r.Incomplete():
		return "no difference found, but the comparison is incomplete"
	}
	return "no difference: the same observed behaviours and verdicts"
}

// Text writes the comparison for people.
func (r *Result) Text(w io.Writer, names Names) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff %s -> %s\n", names.Old, names.New)
	var shared []string
	for _, s := range r.Obs.Shared {
		shared = append(shared, s.Old.Name)
	}
	fmt.Fprintf(&b, "observed: %s\n", listText(shared))
	for _, h := range r.Obs.Hidden {
		fmt.Fprintf(&b, "hidden: %s (%s)\n", h.Name, h.Reason)
	}
	if len(r.Obs.OnlyOld) > 0 {
		fmt.Fprintf(&b, "actions only in old: %s\n", strings.Join(r.Obs.OnlyOld, ", "))
	}
	if len(r.Obs.OnlyNew) > 0 {
		fmt.Fprintf(&b, "actions only in new: %s\n", strings.Join(r.Obs.OnlyNew, ", "))
	}
	for _, d := range []*Direction{r.OldOnly, r.NewOnly} {
		b.WriteByte('\n')
		m := r.model(d.From)
		switch {
		case d.Trace != nil:
			fmt.Fprintf(&b, "%s allows, %s does not (%s):\n", d.From, d.To, stepsText(len(d.Trace.Steps)-1))
			writeTrace(&b, m, d.Trace.Steps)
			fmt.Fprintf(&b, "  %s cannot follow step %d: %s\n", d.To, len(d.Trace.Steps)-1, d.Trace.Why)
			for _, x := range d.Trace.Mismatch {
				fmt.Fprintf(&b, "    %s\n", x)
			}
		case d.Incomplete:
			fmt.Fprintf(&b, "%s allows, %s does not: incomplete, %s (%d pairs explored)\n", d.From, d.To, d.Reason, d.Nodes)
		default:
			fmt.Fprintf(&b, "%s allows nothing %s does not (%d pairs explored)\n", d.From, d.To, d.Nodes)
		}
	}
	if len(r.Checks) > 0 {
		b.WriteString("\nchecks:\n")
		rows := [][]string{{"kind", "name", "old", "new", "change"}}
		for _, c := range r.Checks {
			rows = append(rows, []string{c.Kind, c.Name, c.Old.Text(), c.New.Text(), c.Change()})
		}
		writeColumns(&b, rows)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func listText(xs []string) string {
	if len(xs) == 0 {
		return "nothing"
	}
	return strings.Join(xs, ", ")
}

func stepsText(n int) string {
	if n == 1 {
		return "1 step"
	}
	return fmt.Sprintf("%d steps", n)
}

// writeTrace prints the steps: the initial state whole, then per step
// the action, the answers taken and the variables it changed.
func writeTrace(b *strings.Builder, m *spec.Model, steps []verdict.Step) {
	for i, st := range steps {
		label := "(initial)"
		if st.Action >= 0 {
			label = m.Actions[st.Action].Name
		}
		parts := report.StepParts(m, steps, i)
		fmt.Fprintf(b, "  %2d  %s  %s\n", i, label, strings.Join(parts, " "))
	}
}

// writeColumns prints rows as left-aligned columns, two spaces apart.
func writeColumns(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			line.WriteString("  " + c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// Markdown writes the comparison as a pull-request comment. Every name
// and message in it is user data (a file name may hold a backtick, a pipe
// or a newline): names go in code spans that no character of theirs can
// close ([mdCode]), other text has every Markdown-active character
// escaped ([mdText]), so nothing renders as live Markdown.
func (r *Result) Markdown(w io.Writer, names Names) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### wrapcheck diff: %s → %s\n\n", report.MarkdownCode(names.Old, false), report.MarkdownCode(names.New, false))
	fmt.Fprintf(&b, "**%s.**\n\n", capitalize(r.Summary()))
	var shared []string
	for _, s := range r.Obs.Shared {
		shared = append(shared, report.MarkdownCode(s.Old.Name, false))
	}
	fmt.Fprintf(&b, "Observed variables: %s.", listText(shared))
	if len(r.Obs.Hidden) > 0 {
		var hid []string
		for _, h := range r.Obs.Hidden {
			hid = append(hid, report.MarkdownCode(h.Name, false)+" ("+report.MarkdownText(h.Reason)+")")
		}
		fmt.Fprintf(&b, " Hidden: %s.", strings.Join(hid, ", "))
	}
	b.WriteString("\n")
	for _, d := range []*Direction{r.OldOnly, r.NewOnly} {
		b.WriteByte('\n')
		m := r.model(d.From)
		switch {
		case d.Trace != nil:
			fmt.Fprintf(&b, "#### %s allows, %s does not (%s)\n\n", d.From, d.To, stepsText(len(d.Trace.Steps)-1))
			b.WriteString("| step | action | changes |\n| ---: | --- | --- |\n")
			for i, st := range d.Trace.Steps {
				label := "(initial)"
				if st.Action >= 0 {
					label = m.Actions[st.Action].Name
				}
				parts := report.StepParts(m, d.Trace.Steps, i)
				fmt.Fprintf(&b, "| %d | %s | %s |\n", i, report.MarkdownCode(label, true), report.MarkdownText(strings.Join(parts, " ")))
			}
			fmt.Fprintf(&b, "\n%s cannot follow step %d: %s.", d.To, len(d.Trace.Steps)-1, report.MarkdownText(d.Trace.Why))
			for _, x := range d.Trace.Mismatch {
				fmt.Fprintf(&b, " %s.", report.MarkdownCode(x, false))
			}
			b.WriteString("\n")
		case d.Incomplete:
			fmt.Fprintf(&b, "#### %s allows, %s does not: incomplete\n\n%s (%d pairs explored).\n", d.From, d.To, report.MarkdownText(d.Reason), d.Nodes)
		default:
			fmt.Fprintf(&b, "#### %s allows nothing %s does not\n\n%d pairs explored.\n", d.From, d.To, d.Nodes)
		}
	}
	if len(r.Checks) > 0 {
		b.WriteString("\n#### Checks\n\n| kind | name | old | new | change |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range r.Checks {
			ch := report.MarkdownText(c.Change())
			if c.Changed() {
				ch = "**" + ch + "**"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", report.MarkdownText(c.Kind), report.MarkdownText(c.Name), report.MarkdownText(c.Old.Text()), report.MarkdownText(c.New.Text()), ch)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The JSON output; docs/json-schema-diff.json is its schema.
type (
	jsonResult struct {
		Format   int           `json:"format"`
		Old      jsonSpec      `json:"old"`
		New      jsonSpec      `json:"new"`
		Verdict  string        `json:"verdict"`
		Observed []string      `json:"observed"`
		Hidden   []jsonHidden  `json:"hidden"`
		OnlyOld  []string      `json:"actions_only_old"`
		OnlyNew  []string      `json:"actions_only_new"`
		OldOnly  jsonDirection `json:"old_only"`
		NewOnly  jsonDirection `json:"new_only"`
		Checks   []jsonCheck   `json:"checks"`
	}
	jsonSpec struct {
		File string `json:"file"`
		Spec string `json:"spec"`
	}
	jsonHidden struct {
		Name   string `json:"name"`
		Spec   string `json:"spec"`
		Reason string `json:"reason"`
	}
	jsonDirection struct {
		Status   string     `json:"status"` // "none", "found", "incomplete"
		Reason   string     `json:"reason,omitempty"`
		Pairs    int64      `json:"pairs"`
		Trace    []jsonStep `json:"trace"`
		Why      string     `json:"why,omitempty"`
		Mismatch []string   `json:"mismatch,omitempty"`
	}
	jsonStep struct {
		Step   int            `json:"step"`
		Action *string        `json:"action"`
		State  map[string]any `json:"state"`
		Asked  map[string]any `json:"asked,omitempty"`
	}
	jsonCheck struct {
		Kind   string      `json:"kind"`
		Name   string      `json:"name"`
		Old    jsonOutcome `json:"old"`
		New    jsonOutcome `json:"new"`
		Change string      `json:"change"`
	}
	jsonOutcome struct {
		Verdict string `json:"verdict"` // "holds", "violated", "incomplete", "absent"
		Steps   *int   `json:"steps"`   // trace length of a finite counterexample; null otherwise
		Lasso   bool   `json:"lasso,omitempty"`
		Reason  string `json:"reason,omitempty"`
	}
)

// JSON writes the comparison as one JSON object (format 1), then a
// newline.
func (r *Result) JSON(w io.Writer, names Names) error {
	verdict := "same"
	switch {
	case r.Differ():
		verdict = "differ"
	case r.Incomplete():
		verdict = "incomplete"
	}
	out := jsonResult{Format: FormatVersion, Old: jsonSpec{names.Old, r.Old.Name}, New: jsonSpec{names.New, r.New.Name},
		Verdict: verdict, Observed: []string{}, Hidden: []jsonHidden{}, OnlyOld: nonNil(r.Obs.OnlyOld), OnlyNew: nonNil(r.Obs.OnlyNew),
		Checks: []jsonCheck{}}
	for _, s := range r.Obs.Shared {
		out.Observed = append(out.Observed, s.Old.Name)
	}
	for _, h := range r.Obs.Hidden {
		out.Hidden = append(out.Hidden, jsonHidden(h))
	}
	out.OldOnly, out.NewOnly = r.direction(r.OldOnly), r.direction(r.NewOnly)
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, jsonCheck{Kind: c.Kind, Name: c.Name, Old: outcomeJSON(c.Old), New: outcomeJSON(c.New), Change: c.Change()})
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func outcomeJSON(o Outcome) jsonOutcome {
	if !o.Present {
		return jsonOutcome{Verdict: "absent"}
	}
	j := jsonOutcome{Verdict: o.Verdict.String(), Reason: o.Reason}
	if o.Verdict == Violated {
		if o.Steps < 0 {
			j.Lasso = true
		} else {
			n := o.Steps
			j.Steps = &n
		}
	}
	return j
}

func (r *Result) direction(d *Direction) jsonDirection {
	j := jsonDirection{Status: "none", Pairs: d.Nodes, Trace: []jsonStep{}}
	switch {
	case d.Trace != nil:
		j.Status, j.Why, j.Mismatch = "found", d.Trace.Why, d.Trace.Mismatch
		j.Trace = stepsJSON(r.model(d.From), d.Trace.Steps)
	case d.Incomplete:
		j.Status, j.Reason = "incomplete", d.Reason
	}
	return j
}

// stepsJSON returns the steps of a trace of m as the JSON output prints
// them (and `wrapcheck replay` reads them): step, action, the whole
// state, the answers taken.
func stepsJSON(m *spec.Model, steps []verdict.Step) []jsonStep {
	out := []jsonStep{}
	for i, st := range steps {
		js := jsonStep{Step: i, State: map[string]any{}}
		if st.Action >= 0 {
			name := m.Actions[st.Action].Name
			js.Action = &name
		}
		for _, v := range m.Vars {
			if v.Monitor != nil {
				continue // a past-time monitor, as in check's JSON: not a variable of the spec
			}
			js.State[v.Name] = report.ValueJSON(v.Type, st.State[v.Slot:v.Slot+v.Type.Width])
		}
		if len(st.Asked) > 0 {
			js.Asked = map[string]any{}
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				js.Asked[ag.Name] = report.ValueJSON(ag.Result, a.Value)
			}
		}
		out = append(out, js)
	}
	return out
}

package report

import (
	"encoding/json"
	"io"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// SARIF writes res as a SARIF 2.1.0 log with one run: the tool driver
// "wrapcheck" with one rule per invariant and property of m and one per
// other kind of check (deadlock, assertion, runtime-error), and one
// result, level error, per violation found (with --continue, one per
// violated check), located at the check's
// declaration (for an assertion or runtime error, the failing statement),
// with the trace as a code flow: one thread-flow location per step at the
// action's declaration, its message the action and what it changed, its
// state the whole state. Columns count Unicode code points.
func SARIF(w io.Writer, m *spec.Model, res *checker.Result) error {
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "wrapcheck", InformationURI: "https://github.com/wrapcheck/wrapcheck", Rules: sarifRules(m)}},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
		Properties: map[string]any{
			"spec":        m.Name,
			"verdict":     res.Verdict.String(),
			"states":      res.Stats.States,
			"transitions": res.Stats.Transitions,
		},
	}
	if res.Reason != "" {
		run.Properties["reason"] = res.Reason
	}
	if m.Filename != "" {
		run.Artifacts = []sarifArtifact{{Location: sarifArtifactLocation{URI: m.Filename}}}
	}
	for _, v := range Violations(res) {
		run.Results = append(run.Results, sarifResultOf(m, v))
	}
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

func sarifRules(m *spec.Model) []sarifRule {
	var rules []sarifRule
	for _, in := range m.Invariants {
		rules = append(rules, sarifRule{ID: in.Name, Name: in.Name,
			ShortDescription:     sarifMessage{Text: "invariant " + in.Name + " holds in every reachable state"},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": checker.Invariant.String(), "position": in.Pos.String()}})
	}
	for _, p := range m.Properties {
		rules = append(rules, sarifRule{ID: p.Name, Name: p.Name,
			ShortDescription:     sarifMessage{Text: "property " + p.Name + " holds on every path"},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": checker.Property.String(), "position": p.Pos.String()}})
	}
	for _, k := range []struct {
		kind checker.Kind
		text string
	}{
		{checker.Deadlock, "every reachable state with no enabled action is terminal"},
		{checker.Assertion, "no assert statement fails"},
		{checker.RuntimeError, "no value goes out of range, no index out of bounds, no division by zero"},
	} {
		rules = append(rules, sarifRule{ID: k.kind.String(), Name: k.kind.String(),
			ShortDescription:     sarifMessage{Text: k.text},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": k.kind.String()}})
	}
	return rules
}

func sarifResultOf(m *spec.Model, v *checker.Violation) sarifResult {
	msg := Headline(m, v)
	if v.Msg != "" && (v.Kind == checker.Property) {
		msg += ": " + v.Msg
	}
	r := sarifResult{
		RuleID:    ruleID(v),
		Level:     "error",
		Message:   sarifMessage{Text: msg},
		Locations: []sarifLocation{sarifLocationAt(checkPos(m, v), "")},
	}
	var locs []sarifThreadFlowLocation
	for i, st := range v.Trace {
		state := map[string]sarifMessage{}
		for _, vr := range m.Vars {
			state[vr.Name] = sarifMessage{Text: varValue(vr, st.State).String()}
		}
		text := stepSummary(m, v.Trace, i)
		var kinds []string
		if v.LoopStart >= 0 && i == v.LoopStart {
			text += " (the cycle starts here)"
			kinds = []string{"loop-start"}
		}
		loc := sarifLocationAt(actionPos(m, st), text)
		locs = append(locs, sarifThreadFlowLocation{
			Location:       &loc,
			State:          state,
			Kinds:          kinds,
			ExecutionOrder: i + 1,
		})
	}
	flowMsg := "a shortest trace to the violation"
	if v.LoopStart >= 0 {
		flowMsg = "a lasso: the steps from the one marked loop-start repeat forever"
		if len(v.Trace) > 0 {
			flowMsg += "; " + loopLine(m, v)[len("     ↻  "):]
			flowMsg = flowMsg[:len(flowMsg)-1]
		}
	}
	if len(locs) > 0 {
		r.CodeFlows = []sarifCodeFlow{{
			Message:     sarifMessage{Text: flowMsg},
			ThreadFlows: []sarifThreadFlow{{Locations: locs}},
		}}
	}
	r.Properties = map[string]any{"kind": v.Kind.String(), "steps": len(v.Trace) - 1}
	if v.LoopStart >= 0 {
		r.Properties["loop_start"] = v.LoopStart
	}
	return r
}

func sarifLocationAt(p spec.Position, text string) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysicalLocation{
		ArtifactLocation: sarifArtifactLocation{URI: p.Filename},
		Region:           sarifRegion{StartLine: p.Line, StartColumn: p.Col},
	}}
	if text != "" {
		loc.Message = &sarifMessage{Text: text}
	}
	return loc
}

// The subset of the SARIF 2.1.0 object model that wrapcheck emits; field
// names and nesting follow the OASIS standard.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool       `json:"tool"`
		Artifacts  []sarifArtifact `json:"artifacts,omitempty"`
		ColumnKind string          `json:"columnKind"`
		Results    []sarifResult   `json:"results"`
		Properties map[string]any  `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name,omitempty"`
		ShortDescription     sarifMessage   `json:"shortDescription"`
		DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
		Properties           map[string]any `json:"properties,omitempty"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifArtifact struct {
		Location sarifArtifactLocation `json:"location"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID     string          `json:"ruleId"`
		Level      string          `json:"level"`
		Message    sarifMessage    `json:"message"`
		Locations  []sarifLocation `json:"locations"`
		CodeFlows  []sarifCodeFlow `json:"codeFlows,omitempty"`
		Properties map[string]any  `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          *sarifMessage         `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifArtifactLocation struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	sarifCodeFlow struct {
		Message     sarifMessage      `json:"message"`
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location       *sarifLocation          `json:"location,omitempty"`
		State          map[string]sarifMessage `json:"state,omitempty"`
		Kinds          []string                `json:"kinds,omitempty"`
		ExecutionOrder int                     `json:"executionOrder,omitempty"`
	}
)

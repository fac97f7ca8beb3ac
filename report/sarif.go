package report

import (
	"fmt"
	"io"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// SARIF writes res as a SARIF 2.1.0 log with one run: the tool driver
// "wrapcheck" with one rule per invariant and property of m and one per
// other kind of check (deadlock, assertion, runtime-error), and one
// result, level error, per violation found (with --continue, one per
// violated check), located at the check's
// declaration (for an assertion or runtime error, the failing statement),
// with the trace as a code flow: one thread-flow location per step at the
// action's declaration, its message the action and what it changed, its
// state the whole state; with a causal slice attached
// (verdict.Violation.Slice), each location's importance is essential or
// unimportant and its message says why. Columns count Unicode code points.
func SARIF(w io.Writer, m *spec.Model, res *verdict.Result) error {
	return SARIFOptions{}.Render(w, m, res)
}

// SARIFOptions configures the SARIF renderer. The zero value: no vet
// warnings, no tool version.
type SARIFOptions struct {
	// Warnings are warnings about the spec besides the search's own
	// (vet's findings); every warning is a result of level warning (error
	// under Strict) with the rule "warning".
	Warnings []Diagnostic
	// Strict makes warnings failures (--strict).
	Strict bool
	// ToolVersion is the wrapcheck version (tool.driver.version).
	ToolVersion string
}

// sarifBase is the uriBaseId of every artifact location: the directory
// wrapcheck ran in, against which the relative file names resolve.
const sarifBase = "SRCROOT"

// newSARIFRun returns a run of the wrapcheck driver with the rules and no
// results.
func newSARIFRun(version string, rules []sarifRule) sarifRun {
	return sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "wrapcheck", Version: version,
			InformationURI: "https://github.com/wrapcheck/wrapcheck", Rules: rules}},
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{
			sarifBase: {Description: &sarifMessage{Text: "the directory wrapcheck ran in: file names are relative to it"}},
		},
		ColumnKind: "unicodeCodePoints",
		Results:    []sarifResult{},
	}
}

// Render writes res as [SARIF] does, with the warnings of o, and an
// invocation that says whether the search completed: a search stopped by a
// limit gets a tool notification, so that code scanning does not read it
// as a clean run.
func (o SARIFOptions) Render(w io.Writer, m *spec.Model, res *verdict.Result) error {
	ws := allWarnings(m, res, o.Warnings)
	rules := sarifRules(m)
	level := "warning"
	if o.Strict {
		level = "error"
	}
	if len(ws) > 0 {
		rules = append(rules, sarifRule{ID: "warning", Name: "warning",
			ShortDescription:     sarifMessage{Text: "no action never fires, no invariant holds vacuously, no suspicious construct"},
			DefaultConfiguration: sarifConfig{Level: level}})
	}
	run := newSARIFRun(o.ToolVersion, rules)
	run.Properties = map[string]any{
		"spec":        m.Name,
		"verdict":     res.Verdict.String(),
		"states":      res.Stats.States,
		"transitions": res.Stats.Transitions,
		"complete":    Complete(res),
	}
	if res.Reason() != "" {
		run.Properties["reason"] = res.Reason()
	}
	if m.Filename != "" {
		run.Artifacts = []sarifArtifact{{Location: sarifArtifactLocation{URI: m.Filename, URIBaseID: sarifBase}}}
	}
	for _, v := range Violations(res) {
		run.Results = append(run.Results, sarifResultOf(m, v))
	}
	for _, d := range ws {
		run.Results = append(run.Results, sarifResult{RuleID: "warning", Level: level, Message: sarifMessage{Text: Escape(d.Msg)},
			Locations: []sarifLocation{sarifLocationAt(d.Pos, "")}})
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	if res.Verdict == verdict.Unknown {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "warning",
			Message: sarifMessage{Text: "the search stopped early (" + res.Reason() + ") with no violation found: the checks are not decided"}}}
	}
	run.Invocations = []sarifInvocation{inv}
	return writeSARIF(w, run)
}

func sarifRules(m *spec.Model) []sarifRule {
	var rules []sarifRule
	for _, in := range m.Invariants {
		rules = append(rules, sarifRule{ID: in.Name, Name: in.Name,
			ShortDescription:     sarifMessage{Text: "invariant " + in.Name + " holds in every reachable state"},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": verdict.Invariant.String(), "position": in.Pos.String()}})
	}
	for _, p := range m.Properties {
		rules = append(rules, sarifRule{ID: p.Name, Name: p.Name,
			ShortDescription:     sarifMessage{Text: "property " + p.Name + " holds on every path"},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": verdict.Property.String(), "position": p.Pos.String()}})
	}
	for _, k := range []struct {
		kind verdict.Kind
		text string
	}{
		{verdict.Deadlock, "every reachable state with no enabled action is terminal"},
		{verdict.Assertion, "no assert statement fails"},
		{verdict.RuntimeError, "no value goes out of range, no index out of bounds, no division by zero"},
	} {
		rules = append(rules, sarifRule{ID: k.kind.String(), Name: k.kind.String(),
			ShortDescription:     sarifMessage{Text: k.text},
			DefaultConfiguration: sarifConfig{Level: "error"},
			Properties:           map[string]any{"kind": k.kind.String()}})
	}
	return rules
}

func sarifResultOf(m *spec.Model, v *verdict.Violation) sarifResult {
	msg := Headline(m, v)
	if v.Msg != "" && (v.Kind == verdict.Property) {
		msg += ": " + v.Msg
	}
	r := sarifResult{
		RuleID:    ruleID(v),
		Level:     "error",
		Message:   sarifMessage{Text: msg},
		Locations: []sarifLocation{sarifLocationAt(checkPos(m, v), "")},
	}
	var locs []sarifThreadFlowLocation
	sl := sliceOf(v)
	watches := traceWatches(m, nil, v.Trace)
	for i, st := range v.Trace {
		state := map[string]sarifMessage{}
		for _, vr := range m.Vars {
			if vr.Monitor == nil {
				state[vr.Name] = sarifMessage{Text: varValue(vr, st.State).String()}
			}
		}
		if watches != nil {
			// a watch is an expression: its text never names a variable
			// but a bare variable, whose value it is
			for j, w := range watches[i] {
				state[m.Watches[j].Text] = sarifMessage{Text: w.Text()}
			}
		}
		text := stepSummary(m, v.Trace, i)
		var kinds []string
		if v.LoopStart >= 0 && i == v.LoopStart {
			text += " (the cycle starts here)"
			kinds = []string{"loop-start"}
		}
		importance := ""
		if sl != nil {
			// The causal slice: SARIF's own scale of how much a location
			// matters to the flow.
			importance = "unimportant"
			if sl.Steps[i].Essential {
				importance = "essential"
			}
			if why := sl.Steps[i].Because; why != "" {
				text += "; because: " + why
			}
			if sl.Steps[i].BeforeNext {
				text += fmt.Sprintf("; must come before step %d", i+1)
			}
		}
		loc := sarifLocationAt(actionPos(m, st), text)
		locs = append(locs, sarifThreadFlowLocation{
			Location:       &loc,
			State:          state,
			Kinds:          kinds,
			ExecutionOrder: i + 1,
			Importance:     importance,
		})
	}
	flowMsg := "a shortest trace to the violation"
	if sl != nil {
		flowMsg += fmt.Sprintf(": %d of its %d steps are essential (importance), each with why", essentialCount(sl), len(v.Trace)-1)
	}
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
		ArtifactLocation: sarifArtifactLocation{URI: p.Filename, URIBaseID: sarifBase},
		Region:           &sarifRegion{StartLine: p.Line, StartColumn: p.Col},
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
		Tool               sarifTool                        `json:"tool"`
		Invocations        []sarifInvocation                `json:"invocations,omitempty"`
		OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
		Artifacts          []sarifArtifact                  `json:"artifacts,omitempty"`
		ColumnKind         string                           `json:"columnKind"`
		Results            []sarifResult                    `json:"results"`
		Properties         map[string]any                   `json:"properties,omitempty"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level   string       `json:"level"`
		Message sarifMessage `json:"message"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
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
		RuleID           string          `json:"ruleId"`
		Level            string          `json:"level"`
		Message          sarifMessage    `json:"message"`
		Locations        []sarifLocation `json:"locations"`
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
		CodeFlows        []sarifCodeFlow `json:"codeFlows,omitempty"`
		Properties       map[string]any  `json:"properties,omitempty"`
	}
	sarifLocation struct {
		ID               int                   `json:"id,omitempty"`
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		Message          *sarifMessage         `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifArtifactLocation struct {
		URI         string        `json:"uri,omitempty"`
		URIBaseID   string        `json:"uriBaseId,omitempty"`
		Description *sarifMessage `json:"description,omitempty"`
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
		Importance     string                  `json:"importance,omitempty"`
	}
)

package report

import (
	"io"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// SARIFFinding is one result of [SARIFOptions.RenderFindings]: a
// violation, rendered as [SARIF] renders it, or a finding about something
// other than the spec's state space (a recorded run that diverges from the
// spec), located in the spec.
type SARIFFinding struct {
	// Violation, when set, is rendered as by [SARIF] (located at its
	// check, its trace as a code flow), with Message, when set, before
	// its message; RuleID and Pos are then ignored.
	Violation *verdict.Violation
	RuleID    string        // one of the rules given to RenderFindings
	Message   string        // escaped by the renderer
	Pos       spec.Position // where in the spec it points
	// Related are places in other files (the line of a run file), as the
	// result's related locations.
	Related    []SARIFPlace
	Properties map[string]any
}

// SARIFPlace is a line of a file other than the spec.
type SARIFPlace struct {
	URI     string // relative to the directory wrapcheck ran in
	Line    int    // 1-based; 0: the file as a whole
	Message string // escaped by the renderer
}

// SARIFRule is a rule of findings besides the spec's checks.
type SARIFRule struct {
	ID          string
	Description string // what the rule asks for
}

// RenderFindings writes a SARIF 2.1.0 log with one run, as [SARIF] does:
// the rules of m's checks and the given rules, one result per finding, the
// spec and the files of the related places as artifacts, and props as the
// run's properties.
func (o SARIFOptions) RenderFindings(w io.Writer, m *spec.Model, rules []SARIFRule, findings []SARIFFinding, props map[string]any) error {
	all := sarifRules(m)
	for _, r := range rules {
		all = append(all, sarifRule{ID: r.ID, Name: r.ID, ShortDescription: sarifMessage{Text: r.Description},
			DefaultConfiguration: sarifConfig{Level: "error"}})
	}
	run := newSARIFRun(o.ToolVersion, all)
	run.Properties = props
	seen := map[string]bool{}
	addArtifact := func(uri string) {
		if uri != "" && !seen[uri] {
			seen[uri] = true
			run.Artifacts = append(run.Artifacts, sarifArtifact{Location: sarifArtifactLocation{URI: uri, URIBaseID: sarifBase}})
		}
	}
	addArtifact(m.Filename)
	for _, f := range findings {
		var r sarifResult
		if f.Violation != nil {
			r = sarifResultOf(m, f.Violation)
			if f.Message != "" {
				r.Message.Text = Escape(f.Message) + ": " + r.Message.Text
			}
		} else {
			r = sarifResult{RuleID: f.RuleID, Level: "error", Message: sarifMessage{Text: Escape(f.Message)},
				Locations: []sarifLocation{sarifLocationAt(f.Pos, "")}}
		}
		for i, p := range f.Related {
			loc := sarifLocation{ID: i + 1, PhysicalLocation: sarifPhysicalLocation{
				ArtifactLocation: sarifArtifactLocation{URI: p.URI, URIBaseID: sarifBase}}}
			if p.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: p.Line}
			}
			if p.Message != "" {
				loc.Message = &sarifMessage{Text: Escape(p.Message)}
			}
			r.RelatedLocations = append(r.RelatedLocations, loc)
			addArtifact(p.URI)
		}
		if len(f.Properties) > 0 {
			if r.Properties == nil {
				r.Properties = map[string]any{}
			}
			for k, v := range f.Properties {
				r.Properties[k] = v
			}
		}
		run.Results = append(run.Results, r)
	}
	run.Invocations = []sarifInvocation{{ExecutionSuccessful: true}}
	return writeSARIF(w, run)
}

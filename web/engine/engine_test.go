package engine

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const longSpec = `spec Long
var a: 0..2000 = 0
var b: 0..2000 = 0
process p {
  action incA when a < 2000 { a := a + 1 }
  action incB when b < 2000 { b := b + 1 }
}
`

func toctou(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/approval/toctou.wrap")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summary is what a test compares of a response.
type summary struct {
	Verdict, Reason string
	Errors          []string
	TraceLen        int
	Operands        []string
	Formatted       string
	Next            []string
}

func summarize(t *testing.T, r *Response) summary {
	t.Helper()
	var s summary
	for _, e := range r.Errors {
		s.Errors = append(s.Errors, e.Text)
	}
	if len(r.Report) > 0 {
		var doc struct{ Verdict, Reason string }
		if err := json.Unmarshal(r.Report, &doc); err != nil {
			t.Fatal(err)
		}
		s.Verdict, s.Reason = doc.Verdict, doc.Reason
	}
	s.TraceLen = len(r.TraceSlots)
	s.Operands = r.Operands
	s.Formatted = r.Formatted
	if r.Explore != nil {
		for _, n := range r.Explore.Next {
			s.Next = append(s.Next, n.Action+" "+string(n.Asked)+" "+string(n.State))
		}
	}
	return s
}

func TestRun(t *testing.T) {
	src := toctou(t)
	tests := []struct {
		name string
		req  Request
		want summary
	}{
		{"check TOCTOU", Request{Op: "check", Source: src}, summary{Verdict: "violated", TraceLen: 4, Operands: []string{"shipped == approved: false"}}},
		{"state limit", Request{Op: "check", Source: longSpec, MaxStates: 1000}, summary{Verdict: "incomplete", Reason: "state limit"}},
		{"time limit", Request{Op: "check", Source: longSpec, MaxStates: 1 << 40, TimeoutMS: 200}, summary{Verdict: "incomplete", Reason: "timeout"}},
		{"syntax error at its position", Request{Op: "check", Name: "x.wrap", Source: "spec X\nvar x: 0..3 = 0\nprocess p { action a { x = 1 } }\n"},
			summary{Errors: []string{"x.wrap:3:26: expected ':=' or '!' or '?', found '=' (use == to compare, := to assign)"}}},
		{"too large", Request{Op: "check", Source: strings.Repeat(" ", MaxSource+1)}, summary{Errors: []string{"spec.wrap: the spec is larger than 1 MiB"}}},
		{"unknown op", Request{Op: "prove", Source: "spec X\n"}, summary{Errors: []string{`unknown operation "prove": want check, vet, fmt, graph, explore or watch`}}},
		{"fmt", Request{Op: "fmt", Source: "spec    X\nvar x:bool\n"}, summary{Formatted: "spec X\nvar x: bool\n"}},
		{"explore the initial states", Request{Op: "explore", Source: src},
			summary{Next: []string{`  {"content": 0, "approved": 0, "granted": false, "released": false, "shipped": 0}`}}},
		{"explore after the approval", Request{Op: "explore", Source: src, Slots: []int64{0, 0, 1, 0, 0}}, summary{Next: []string{
			`editor.edit  {"content": 1, "approved": 0, "granted": true, "released": false, "shipped": 0}`,
			`releaser.release  {"content": 0, "approved": 0, "granted": true, "released": true, "shipped": 0}`,
		}}},
		{"explore a state of another spec", Request{Op: "explore", Source: src, Slots: []int64{1}},
			summary{Errors: []string{"explore: the state has 1 slots, the spec 5 (was the spec edited?)"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(t, Run(context.Background(), tc.req, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestExploreAnswers: the explorer lists each agent answer as its own
// successor.
func TestExploreAnswers(t *testing.T) {
	b, err := os.ReadFile("../../examples/pipeline/fail_open.wrap")
	if err != nil {
		t.Fatal(err)
	}
	init := Run(context.Background(), Request{Op: "explore", Source: string(b)}, nil)
	if len(init.Errors) > 0 || len(init.Explore.Next) == 0 {
		t.Fatalf("initial states: %+v", init)
	}
	r := Run(context.Background(), Request{Op: "explore", Source: string(b), Slots: init.Explore.Next[0].Slots}, nil)
	answers := 0
	for _, n := range r.Explore.Next {
		if len(n.Asked) > 0 {
			answers++
		}
	}
	if answers < 2 {
		t.Errorf("%d successors with agent answers, want at least 2: %+v", answers, r.Explore.Next)
	}
}

func TestExamplesHaveLessons(t *testing.T) {
	ex, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) < 20 {
		t.Fatalf("%d examples, want at least 20", len(ex))
	}
	for _, e := range ex {
		if e.Lesson == "" || e.Source == "" {
			t.Errorf("%s: no lesson or no source", e.Path)
		}
	}
}

// TestRunLoadsUnderContext holds that loading a spec (constant folding,
// fn expansion: work a spec controls) runs under the request's context:
// a request whose client has gone loads nothing and checks nothing.
func TestRunLoadsUnderContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, op := range []string{"check", "vet", "graph", "explore"} {
		resp := Run(ctx, Request{Op: op, Source: toctou(t)}, nil)
		if resp.Report != nil || resp.Warnings != nil || resp.DOT != "" || resp.Explore != nil ||
			len(resp.Errors) != 1 || !strings.Contains(resp.Errors[0].Msg, context.Canceled.Error()) {
			t.Errorf("%s with a cancelled context: report %.80s, %d warnings, errors %v; want only the error %q", op, resp.Report, len(resp.Warnings), resp.Errors, context.Canceled)
		}
	}
}

// TestTraceText: the trace and the explorer's states come in wrap's
// notation, as the text report prints them, and a lasso's report has
// the fairness note.
func TestTraceText(t *testing.T) {
	b, err := os.ReadFile("../../examples/pipeline/rerender_forever.wrap")
	if err != nil {
		t.Fatal(err)
	}
	r := Run(context.Background(), Request{Op: "check", Source: string(b)}, nil)
	if len(r.TraceText) != len(r.TraceSlots) || len(r.TraceText) < 2 {
		t.Fatalf("%d steps of text, %d of slots", len(r.TraceText), len(r.TraceSlots))
	}
	if got := r.TraceText[0].Changed; !slices.Contains(got, "rel = [unreleased, unreleased]") {
		t.Errorf("initial state %q: no `rel = [unreleased, unreleased]`", got)
	}
	want := StepText{Asked: []string{"planner → {}"}, Changed: []string{"phase = rendering"}}
	if diff := cmp.Diff(want, r.TraceText[1]); diff != "" {
		t.Errorf("step 1 (-want +got):\n%s", diff)
	}
	var doc struct{ Notes []string }
	if err := json.Unmarshal(r.Report, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) == 0 || !strings.Contains(doc.Notes[0], "`fairness strong human` would exclude this cycle") {
		t.Errorf("notes %q: no fairness note", doc.Notes)
	}
	ex := Run(context.Background(), Request{Op: "explore", Source: toctou(t), Slots: []int64{0, 0, 1, 0, 0}}, nil).Explore
	wantState := []string{"content = 0", "approved = 0", "granted = true", "released = false", "shipped = 0"}
	if diff := cmp.Diff(wantState, ex.StateText); diff != "" {
		t.Errorf("explored state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(StepText{Changed: []string{"content = 1"}}, ex.Next[0].Text); diff != "" {
		t.Errorf("explorer's editor.edit (-want +got):\n%s", diff)
	}
}

// TestCheckProb: a check of a spec with probability queries carries
// their values (report.QuantJSON's object, as `wrapcheck prob --format
// json`), a spec without them none, and a limit that stops the
// computation says so instead.
func TestCheckProb(t *testing.T) {
	b, err := os.ReadFile("../../examples/pipeline/rates.wrap")
	if err != nil {
		t.Fatal(err)
	}
	resp := Run(context.Background(), Request{Op: "check", Name: "rates.wrap", Source: string(b)}, nil)
	var doc struct {
		Verdict string
		Queries []struct {
			Name  string
			Max   struct{ Exact string }
			Bound *struct{ Violated bool }
		}
	}
	if err := json.Unmarshal(resp.Prob, &doc); err != nil {
		t.Fatalf("prob %q: %v (%s)", resp.Prob, err, resp.ProbError)
	}
	var got []string
	for _, q := range doc.Queries {
		got = append(got, q.Name+" "+q.Max.Exact)
		if q.Name == "CleanCaveat" && (q.Bound == nil || !q.Bound.Violated) {
			t.Errorf("CleanCaveat's bound is not violated: %s", resp.Prob)
		}
	}
	if diff := cmp.Diff([]string{"Caveat 1", "CleanCaveat 1", "Stop 0", "FabricationReleased 15/16"}, got); diff != "" || doc.Verdict != "violated" {
		t.Errorf("verdict %s, queries (-want +got):\n%s", doc.Verdict, diff)
	}
	if resp := Run(context.Background(), Request{Op: "check", Source: toctou(t)}, nil); resp.Prob != nil || resp.ProbError != "" {
		t.Errorf("toctou has no queries but got %s %q", resp.Prob, resp.ProbError)
	}
	resp = Run(context.Background(), Request{Op: "check", Source: string(b), MaxStates: 5}, nil)
	if resp.Prob != nil || !strings.Contains(resp.ProbError, "more than 5 states") {
		t.Errorf("at 5 states: prob %s, error %q", resp.Prob, resp.ProbError)
	}
}

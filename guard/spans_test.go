package guard_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/replay"
)

// TestSpans checks the OTLP JSON a SpanExporter posts: one span a
// decision, the spans of a run in one trace, the decision's attributes.
func TestSpans(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("posted to %s as %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
	}))
	defer srv.Close()
	exp := guard.NewSpanExporter(srv.URL+"/v1/traces", "test-guard")
	g, err := guard.New(compile(t, "../examples/approval/toctou.wrap"), guard.Options{Spans: exp})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		`{"op": "open", "run": "r"}`,
		`{"run": "r", "id": "1", "event": {"action": "approver.approve"}}`,
		`{"run": "r", "id": "2", "event": {"action": "editor.edit"}}`,
		`{"run": "r", "id": "3", "event": {"action": "releaser.release"}}`,
		// the wrapper's trace context: the span its child; malformed ones ignored
		`{"op": "state", "run": "r", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`,
		`{"op": "state", "run": "r", "traceparent": "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"}`,
		`{"op": "state", "run": "r", "traceparent": "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}`,
		`{"op": "state", "run": "r", "traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}`,
		`{"op": "state", "run": "r", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"}`,
		`{"op": "state", "run": "r", "traceparent": "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`,
	} {
		g.HandleLine([]byte(l))
	}
	if err := exp.Close(); err != nil {
		t.Fatal(err)
	}
	type attr struct {
		Key   string
		Value map[string]any
	}
	type span struct {
		TraceID, SpanID, ParentSpanID, Name string
		Attributes                          []attr
	}
	var spans []span
	for _, b := range bodies {
		if !replay.IsOTLP(b) {
			t.Errorf("not OTLP JSON: %s", b)
		}
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct{ Spans []span }
			}
		}
		if err := json.Unmarshal(b, &req); err != nil {
			t.Fatal(err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	if len(spans) != 10 {
		t.Fatalf("%d spans, want 10", len(spans))
	}
	for i, s := range spans[1:] {
		if i+1 == 4 || i+1 == 5 { // the valid traceparents, versions 00 and cc
			if s.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || s.ParentSpanID != "00f067aa0ba902b7" {
				t.Errorf("span %d %+v not the child of the traceparent's span", i+1, s)
			}
			continue
		}
		if s.TraceID != spans[0].TraceID || s.ParentSpanID != "" || s.SpanID == spans[0].SpanID || s.Name != "guard.decide" {
			t.Errorf("span %d %+v not of the run's trace", i+1, s)
		}
	}
	got := map[string]any{}
	for _, a := range spans[3].Attributes {
		for _, v := range a.Value {
			got[a.Key] = v
		}
	}
	want := map[string]any{
		"gen_ai.conversation.id":   "r",
		"wrapcheck.guard.op":       "step",
		"wrapcheck.guard.action":   "releaser.release",
		"wrapcheck.guard.id":       "3",
		"wrapcheck.guard.decision": "block",
		"wrapcheck.guard.step":     "2",
		"wrapcheck.guard.kind":     "violated",
		"wrapcheck.guard.property": "ShippedWhatWasApproved",
		"wrapcheck.guard.reason":   "ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
}

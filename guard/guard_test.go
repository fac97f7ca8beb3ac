package guard_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

func compile(t testing.TB, path string) *machine.Program {
	t.Helper()
	prog, err := exampleProgram(t, path)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// exampleProgram compiles the spec at path, or returns its error (an
// example of a spec error).
func exampleProgram(t testing.TB, path string) (*machine.Program, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		return nil, err
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return prog, nil
}

// brief is what a test compares of a decision.
type brief struct {
	Decision, Kind, Property, Ended string
	Step                            int
	Reason                          string
}

func briefOf(line []byte) brief {
	var d guard.Decision
	if err := json.Unmarshal(line, &d); err != nil {
		return brief{Decision: "undecodable: " + err.Error()}
	}
	return brief{Decision: d.Decision, Kind: d.Kind, Property: d.Property, Ended: d.Ended, Step: d.Step, Reason: d.Reason}
}

func TestDecisions(t *testing.T) {
	prog := compile(t, "../examples/approval/toctou.wrap")
	tests := []struct {
		name  string
		lines []string
		want  []brief
	}{
		{
			name: "the TOCTOU is blocked at the release",
			lines: []string{
				`{"op": "open", "run": "r"}`,
				`{"run": "r", "event": {"action": "approver.approve"}}`,
				`{"run": "r", "event": {"action": "editor.edit"}}`,
				`{"run": "r", "event": {"action": "releaser.release"}}`,
				`{"run": "r", "event": {"action": "editor.edit", "state": {"content": 2}}}`,
			},
			want: []brief{
				{Decision: "allow"},
				{Decision: "allow", Step: 1},
				{Decision: "allow", Step: 2},
				{Decision: "block", Kind: "violated", Property: "ShippedWhatWasApproved", Step: 2, Reason: "ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated"},
				{Decision: "allow", Step: 3},
			},
		},
		{
			name: "a release without approval is not allowed; the run ends at terminal",
			lines: []string{
				`{"op": "open", "run": "r"}`,
				`{"run": "r", "event": {"action": "releaser.release"}}`,
				`{"run": "r", "event": {"action": "approver.approve"}}`,
				`{"run": "r", "event": {"action": "releaser.release"}}`,
				`{"run": "r", "event": {"action": "editor.edit"}}`,
			},
			want: []brief{
				{Decision: "allow"},
				{Decision: "block", Kind: "diverges", Reason: "the spec does not allow releaser.release here"},
				{Decision: "allow", Step: 1},
				{Decision: "allow", Step: 2, Ended: "terminal"},
				{Decision: "block", Kind: "invalid", Reason: `no open run "r" (open it first; a run that ended or was closed is gone)`},
			},
		},
		{
			name: "fail-closed on what cannot be mapped",
			lines: []string{
				`{"op": "open", "run": "r"}`,
				`not json`,
				`{"run": "r", "event": {"action": "approver.aprove"}}`,
				`{"run": "r", "event": {"action": "approver.approve", "state": {"content": 9}}}`,
				`{"run": "r", "event": {"action": "approver.approve", "extra": 1}}`,
				`{"run": "x", "event": {"action": "approver.approve"}}`,
				`{"run": "r", "op": "launch"}`,
				`{"run": "r", "event": {"action": "approver.approve"}, "colour": 1}`,
				`{"run": "r"}`,
				`{"run": "r", "op": "close"}`,
				`{"run": "r", "event": {"action": "approver.approve"}}`,
			},
			want: []brief{
				{Decision: "allow"},
				{Decision: "block", Kind: "invalid", Reason: "request: invalid character 'o' in literal null (expecting 'u')"},
				{Decision: "block", Kind: "invalid", Reason: "event: no action approver.aprove in ApprovalTOCTOU (did you mean approver.approve?)"},
				{Decision: "block", Kind: "invalid", Reason: "event: state.content: 9 is out of range 0..3"},
				{Decision: "block", Kind: "invalid", Reason: `event: unknown member "extra" (a line has action, asked, state and step)`},
				{Decision: "block", Kind: "invalid", Reason: `no open run "x" (open it first; a run that ended or was closed is gone)`},
				{Decision: "block", Kind: "invalid", Reason: `unknown op "launch" (open, step, close or state)`},
				{Decision: "block", Kind: "invalid", Reason: `request: json: unknown field "colour"`},
				{Decision: "block", Kind: "invalid", Reason: "a step needs an event"},
				{Decision: "allow", Ended: "closed"},
				{Decision: "block", Kind: "invalid", Reason: `no open run "r" (open it first; a run that ended or was closed is gone)`},
			},
		},
		{
			name: "a retried step is answered again, not taken twice",
			lines: []string{
				`{"op": "open", "run": "r"}`,
				`{"run": "r", "id": "1", "event": {"action": "editor.edit"}}`,
				`{"run": "r", "id": "1", "event": {"action": "editor.edit"}}`,
				`{"run": "r", "id": "2", "event": {"action": "editor.edit"}}`,
			},
			want: []brief{
				{Decision: "allow"},
				{Decision: "allow", Step: 1},
				{Decision: "allow", Step: 1},
				{Decision: "allow", Step: 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := guard.New(prog, guard.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []brief
			for _, l := range tt.lines {
				got = append(got, briefOf(g.HandleLine([]byte(l))))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBlockTrace checks that a block carries the run's trace in the JSON
// of check's traces.
func TestBlockTrace(t *testing.T) {
	g, err := guard.New(compile(t, "../examples/approval/toctou.wrap"), guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.HandleLine([]byte(`{"op": "open", "run": "r"}`))
	g.HandleLine([]byte(`{"run": "r", "event": {"action": "approver.approve"}}`))
	d := g.Decide(guard.Request{Run: "r", Event: json.RawMessage(`{"action": "approver.approve"}`)})
	want := `[{"step":0,"action":null,"state":{"content":0,"approved":0,"granted":false,"released":false,"shipped":0}},{"step":1,"action":"approver.approve","state":{"content":0,"approved":0,"granted":true,"released":false,"shipped":0}}]`
	if diff := cmp.Diff(want, string(d.Trace)); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"editor.edit", "releaser.release"}, d.Allowed); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
}

// TestLimits checks the bound on open runs and on the size of requests.
func TestLimits(t *testing.T) {
	g, err := guard.New(compile(t, "../examples/approval/toctou.wrap"), guard.Options{MaxRuns: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []brief
	for _, l := range []string{`{"op": "open", "run": "a"}`, `{"op": "open", "run": "b"}`, `{"op": "open", "run": "c"}`, `{"op": "close", "run": "a"}`, `{"op": "open", "run": "c"}`} {
		got = append(got, briefOf(g.HandleLine([]byte(l))))
	}
	got = append(got, briefOf(g.HandleLine([]byte(`{"run": "`+strings.Repeat("x", 300)+`", "op": "open"}`))))
	got = append(got, briefOf(g.HandleLine([]byte(`{"run": "b", "op": "state", "traceparent": "`+strings.Repeat("0", 300)+`"}`))))
	want := []brief{{Decision: "allow"}, {Decision: "allow"}, {Decision: "block", Kind: "limit", Reason: "2 runs are open: close one first"},
		{Decision: "allow", Ended: "closed"}, {Decision: "allow"},
		{Decision: "block", Kind: "invalid", Reason: "request: a run or request id longer than 256 bytes"},
		{Decision: "block", Kind: "invalid", Reason: "request: a traceparent longer than 256 bytes"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// TestJournalRestores checks that a guard started on the journal of
// another has the same runs, in the same states.
func TestJournalRestores(t *testing.T) {
	prog := compile(t, "../examples/approval/toctou.wrap")
	path := filepath.Join(t.TempDir(), "journal")
	g, err := guard.New(prog, guard.Options{Journal: path, SpecDigest: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		`{"op": "open", "run": "a"}`, `{"op": "open", "run": "b"}`, `{"op": "open", "run": "c"}`,
		`{"run": "a", "event": {"action": "editor.edit"}}`,
		`{"run": "a", "id": "k", "event": {"action": "approver.approve"}}`,
		`{"run": "b", "event": {"action": "releaser.release"}}`,
		`{"run": "c", "op": "close"}`,
	} {
		g.HandleLine([]byte(l))
	}
	keyA, _ := g.RunKey("a")
	keyB, _ := g.RunKey("b")
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	// A torn last record (a crash in the middle of a write) is dropped.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"run":"b","event":{"act`)
	f.Close()
	g2, err := guard.New(prog, guard.Options{Journal: path, SpecDigest: "d1"})
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if got, ok := g2.RunKey("a"); !ok || got != keyA {
		t.Errorf("run a not restored (open %v)", ok)
	}
	if got, ok := g2.RunKey("b"); !ok || got != keyB {
		t.Errorf("run b not restored (open %v)", ok)
	}
	if _, ok := g2.RunKey("c"); ok {
		t.Errorf("closed run c restored")
	}
	if got := briefOf(g2.HandleLine([]byte(`{"run": "a", "id": "k", "event": {"action": "approver.approve"}}`))); got != (brief{Decision: "allow", Step: 2}) {
		t.Errorf("retried step after restart: %+v", got)
	}
	if _, err := guard.New(prog, guard.Options{Journal: path, SpecDigest: "d2"}); err == nil || !strings.Contains(err.Error(), "not of this spec") {
		t.Errorf("journal of another digest: %v", err)
	}
}

// TestMetricsAndLog checks the counters of WriteMetrics and the log
// record of each decision.
func TestMetricsAndLog(t *testing.T) {
	var logs strings.Builder
	lg := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == "time" || a.Key == "latency" {
			return slog.Attr{}
		}
		return a
	}}))
	g, err := guard.New(compile(t, "../examples/approval/toctou.wrap"), guard.Options{Logger: lg})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		`{"op": "open", "run": "r"}`,
		`{"run": "r", "id": "1", "event": {"action": "approver.approve"}}`,
		`{"run": "r", "id": "1", "event": {"action": "approver.approve"}}`,
		`{"run": "r", "id": "2", "event": {"action": "editor.edit"}}`,
		`{"run": "r", "id": "3", "event": {"action": "releaser.release"}}`,
		`{"run": "r", "id": "4", "event": {"action": "releaser.release"}}`,
		`oops`,
	} {
		g.HandleLine([]byte(l))
	}
	var b strings.Builder
	if err := g.WriteMetrics(&b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "wrapcheck_guard_") && !strings.HasPrefix(l, "wrapcheck_guard_decision_seconds") {
			got = append(got, l)
		}
	}
	want := []string{
		`wrapcheck_guard_decisions_total{decision="allow"} 4`,
		`wrapcheck_guard_decisions_total{decision="block"} 3`,
		`wrapcheck_guard_blocks_total{kind="invalid",property=""} 1`,
		`wrapcheck_guard_blocks_total{kind="violated",property="ShippedWhatWasApproved"} 2`,
		`wrapcheck_guard_retried_total 1`,
		`wrapcheck_guard_open_runs 1`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if !strings.Contains(b.String(), `wrapcheck_guard_decision_seconds_count 7`) {
		t.Errorf("no latency count of 7 decisions in\n%s", b.String())
	}
	wantLog := `{"level":"INFO","msg":"decision","run":"r","op":"step","id":"3","decision":"block","step":2,"kind":"violated","reason":"ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated","property":"ShippedWhatWasApproved"}`
	if !strings.Contains(logs.String(), wantLog+"\n") {
		t.Errorf("log lacks %s:\n%s", wantLog, logs.String())
	}
}

// TestJournalCompacts checks that a journal mostly of runs gone is
// rewritten at start with what restores the same runs and answers.
func TestJournalCompacts(t *testing.T) {
	prog := compile(t, "../examples/approval/toctou.wrap")
	path := filepath.Join(t.TempDir(), "journal")
	opts := guard.Options{Journal: path, SpecDigest: "d"}
	g, err := guard.New(prog, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 600 { // 1,800 records of runs closed
		run := fmt.Sprintf(`"gone%d"`, i)
		g.HandleLine([]byte(`{"op": "open", "run": ` + run + `}`))
		g.HandleLine([]byte(`{"run": ` + run + `, "event": {"action": "editor.edit"}}`))
		g.HandleLine([]byte(`{"op": "close", "run": ` + run + `}`))
	}
	for _, l := range []string{
		`{"op": "open", "run": "a"}`, `{"run": "a", "event": {"action": "editor.edit"}}`,
		`{"op": "close", "run": "b"}`, `{"op": "open", "run": "b"}`, `{"op": "close", "run": "b"}`, `{"op": "open", "run": "b"}`,
		`{"run": "b", "event": {"action": "approver.approve"}}`,
		`{"op": "open", "run": "e"}`, `{"run": "e", "event": {"action": "approver.approve"}}`,
		`{"run": "e", "id": "last", "event": {"action": "releaser.release"}}`,
	} {
		g.HandleLine([]byte(l))
	}
	keyA, _ := g.RunKey("a")
	keyB, _ := g.RunKey("b")
	lastE := g.HandleLine([]byte(`{"run": "e", "id": "last", "event": {"action": "releaser.release"}}`))
	g.Close()
	before, _ := os.Stat(path)
	for range 2 {
		g2, err := guard.New(prog, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := g2.RunKey("a"); got != keyA {
			t.Errorf("run a not restored")
		}
		if got, _ := g2.RunKey("b"); got != keyB {
			t.Errorf("run b not restored")
		}
		if g2.Runs() != 2 {
			t.Errorf("%d runs restored, want 2", g2.Runs())
		}
		if got := g2.HandleLine([]byte(`{"run": "e", "id": "last", "event": {"action": "releaser.release"}}`)); string(got) != string(lastE) {
			t.Errorf("the retried last step of run e: %s, want %s", got, lastE)
		}
		g2.Close()
	}
	after, _ := os.Stat(path)
	if after.Size()*10 > before.Size() {
		t.Errorf("journal of %d bytes compacted to %d", before.Size(), after.Size())
	}
}

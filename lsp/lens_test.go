package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// waitNote returns the next message from the server with the given
// method for which ok holds, skipping others.
func (c *client) waitNote(method string, ok func(params json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-c.notes:
			if m.Method == method && (ok == nil || ok(m.Params)) {
				return m.Params
			}
		case <-deadline:
			c.t.Fatalf("no %s from the server", method)
			return nil
		}
	}
}

func startWithProgress(t *testing.T) *client {
	t.Helper()
	c := startServer(t, Options{})
	var res map[string]any
	c.result("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{"codeLens": map[string]any{"refreshSupport": true}}}}, &res)
	c.notify("initialized", map[string]any{})
	return c
}

func TestCodeLensCheck(t *testing.T) {
	c := startWithProgress(t)
	if d := c.open(testURI, approvalSpec); len(d) != 0 {
		t.Fatal(d)
	}
	var lenses []codeLens
	c.result("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &lenses)
	if len(lenses) != 1 || lenses[0].Command == nil || lenses[0].Command.Command != commandCheck {
		t.Fatalf("code lenses: %+v", lenses)
	}
	m := c.call("workspace/executeCommand", map[string]any{"command": commandCheck, "arguments": lenses[0].Command.Arguments})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	c.waitNote("window/workDoneProgress/create", nil)
	c.waitNote("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"begin"`) })
	end := c.waitNote("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"end"`) })
	if !strings.Contains(string(end), "ShippedWhatWasApproved") {
		t.Errorf("progress end: %s", end)
	}
	msg := c.waitNote("window/showMessage", nil)
	var shown struct {
		Type    int
		Message string
	}
	json.Unmarshal(msg, &shown)
	if shown.Type != 2 || !strings.HasPrefix(shown.Message, "violated: ShippedWhatWasApproved (3 steps): ") {
		t.Errorf("message %+v, want a warning that starts \"violated: ShippedWhatWasApproved (3 steps): \"", shown)
	}
	var got []diagnostic
	c.waitNote("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd publishDiagnosticsParams
		json.Unmarshal(p, &pd)
		got = pd.Diagnostics
		return len(got) > 0
	})
	if len(got) != 1 || got[0].Source != "wrapcheck check" || got[0].Range.Start != at(approvalSpec, "invariant Shipped", 0) {
		t.Fatalf("counterexample diagnostic: %+v", got)
	}
	var steps []string
	for _, r := range got[0].RelatedInformation {
		steps = append(steps, r.Message)
	}
	if want := "step 0: initial state|step 1: approver.approve|step 2: editor.edit|step 3: releaser.release"; strings.Join(steps, "|") != want {
		t.Errorf("trace steps %q, want %q", strings.Join(steps, "|"), want)
	}
	var md string
	c.result("workspace/executeCommand", map[string]any{"command": commandShowTrace, "arguments": []any{testURI, "ShippedWhatWasApproved"}}, &md)
	if !strings.Contains(md, "releaser.release") || !strings.HasPrefix(md, "# ") {
		t.Errorf("trace markdown: %q", md)
	}
	// The lens shows the result, and its command shows the trace.
	c.waitNote("workspace/codeLens/refresh", nil)
	c.result("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &lenses)
	if len(lenses) != 1 || lenses[0].Command == nil || lenses[0].Command.Title != "violated: ShippedWhatWasApproved (3 steps)" || lenses[0].Command.Command != commandShowTrace {
		t.Errorf("code lens after the check: %+v", lenses[0].Command)
	}
	// wrapcheck.trace returns the trace panel's JSON: check's report, the
	// sequence diagram and the invariant's operands.
	var panel struct {
		Name   string
		Report struct {
			Violations []struct {
				Name  string
				Trace []struct{ Action string }
			}
		}
		TraceText []struct{ Asked, Changed []string } `json:"trace_text"`
		Mermaid   string
		Operands  []string
	}
	c.result("workspace/executeCommand", map[string]any{"command": commandTrace, "arguments": []any{testURI, "ShippedWhatWasApproved"}}, &panel)
	if panel.Name != "ShippedWhatWasApproved" || len(panel.Report.Violations) != 1 || len(panel.Report.Violations[0].Trace) != 4 ||
		panel.Report.Violations[0].Trace[3].Action != "releaser.release" || !strings.HasPrefix(panel.Mermaid, "sequenceDiagram") || len(panel.Operands) == 0 ||
		len(panel.TraceText) != 4 || strings.Join(panel.TraceText[3].Changed, ",") == "" {
		t.Errorf("trace panel JSON: %+v", panel)
	}
	// With watches, wrapcheck.trace adds each one's value at every step,
	// or the error that refused it at its position in the file "watch".
	var watched traceJSON
	c.result("workspace/executeCommand", map[string]any{"command": commandTrace,
		"arguments": []any{testURI, "ShippedWhatWasApproved", []string{"content + 1", "contnet", "10 / content"}}}, &watched)
	var ws []string
	for _, w := range watched.Watches {
		if w.Error != nil {
			ws = append(ws, w.Expr+" refused: "+w.Error.Text)
		} else {
			ws = append(ws, w.Expr+": "+strings.Join(w.Values, ", "))
		}
	}
	if diff := cmp.Diff([]string{
		"content + 1: 1, 1, 2, 2",
		"contnet refused: watch:2:1: undefined: contnet (did you mean content?)",
		"10 / content: error: division by zero, error: division by zero, 10, 10",
	}, ws); diff != "" || len(watched.TraceText) != 4 {
		t.Errorf("wrapcheck.trace with watches (-want +got):\n%s", diff)
	}
	// wrapcheck.showTrace with watches: the text report with a line per
	// watch at every step, the refused ones' errors over it; an empty
	// name is the document's first counterexample.
	c.result("workspace/executeCommand", map[string]any{"command": commandShowTrace,
		"arguments": []any{testURI, "", []string{"content + 1", "contnet"}}}, &md)
	for _, w := range []string{"```text\nwatch:2:1: undefined: contnet (did you mean content?)\n```\n", "         doc.v = 1\n         watch content + 1: 2\n", "invariant ShippedWhatWasApproved is violated"} {
		if !strings.Contains(md, w) {
			t.Errorf("wrapcheck.showTrace with watches lacks %q:\n%s", w, md)
		}
	}
	if m := c.call("workspace/executeCommand", map[string]any{"command": commandTrace, "arguments": []any{testURI, "ShippedWhatWasApproved", "content"}}); m.Error == nil {
		t.Errorf("wrapcheck.trace with a watch that is not a list: no error")
	}
	// An edit drops the counterexample (its positions may be stale).
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []map[string]any{{"text": approvalSpec + "\n"}}})
	if d := c.diagnostics(testURI, 2); len(d) != 0 {
		t.Errorf("after an edit: %+v", d)
	}
	c.result("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &lenses)
	if len(lenses) != 1 || lenses[0].Command.Title != "check ShippedWhatWasApproved" {
		t.Errorf("code lens after an edit: %+v", lenses[0].Command)
	}
}

func TestCodeLensCheckHoldsAndCancel(t *testing.T) {
	c := startWithProgress(t)
	holds := "spec S\nvar x: 0..3\naction a when x < 3 { x := x + 1 }\ninvariant Small: x <= 3\nterminal x == 3\n"
	c.open(testURI, holds)
	c.call("workspace/executeCommand", map[string]any{"command": commandCheck, "arguments": []any{testURI, "Small"}})
	msg := c.waitNote("window/showMessage", nil)
	if !strings.Contains(string(msg), "Small holds (4 states, 3 transitions)") {
		t.Errorf("holds: %s", msg)
	}
	var lenses []codeLens
	c.result("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &lenses)
	if len(lenses) != 1 || lenses[0].Command.Title != "holds: Small (4 states)" || lenses[0].Command.Command != commandCheck {
		t.Errorf("code lens after the check: %+v", lenses[0].Command)
	}
	big := "spec Big\nvar a: 0..500\nvar b: 0..500\nvar c: 0..500\naction ia when a < 500 { a := a + 1 }\n" +
		"action ib when b < 500 { b := b + 1 }\naction ic when c < 500 { c := c + 1 }\ninvariant Fine: a + b + c >= 0 or a == b\n" +
		"terminal a == 500 and b == 500 and c == 500\n"
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///big.wrap", "languageId": "wrap", "version": 1, "text": big}})
	c.diagnostics("file:///big.wrap", 1)
	start := time.Now()
	c.call("workspace/executeCommand", map[string]any{"command": commandCheck, "arguments": []any{"file:///big.wrap", "Fine"}})
	begin := c.waitNote("$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), `"begin"`) })
	var p struct{ Token string }
	json.Unmarshal(begin, &p)
	time.Sleep(300 * time.Millisecond)
	c.notify("window/workDoneProgress/cancel", map[string]any{"token": p.Token})
	msg = c.waitNote("window/showMessage", nil)
	if !strings.Contains(string(msg), "stopped early") {
		t.Errorf("cancelled check: %s", msg)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("cancel took %v", el)
	}
	for _, bad := range []map[string]any{
		{"command": commandCheck, "arguments": []any{testURI, "Nope"}},
		{"command": "no.such", "arguments": []any{testURI}},
		{"command": commandCheck},
		{"command": commandShowTrace, "arguments": []any{testURI, "Small"}},
		{"command": commandTrace, "arguments": []any{testURI, "Small"}},
	} {
		if m := c.call("workspace/executeCommand", bad); m.Error == nil {
			t.Errorf("executeCommand %v: no error", bad)
		}
	}
}

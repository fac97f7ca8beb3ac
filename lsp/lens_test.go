package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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
	c.result("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &res)
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
	c.waitNote("window/showMessage", nil)
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
	// An edit drops the counterexample (its positions may be stale).
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []map[string]any{{"text": approvalSpec + "\n"}}})
	if d := c.diagnostics(testURI, 2); len(d) != 0 {
		t.Errorf("after an edit: %+v", d)
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
	} {
		if m := c.call("workspace/executeCommand", bad); m.Error == nil {
			t.Errorf("executeCommand %v: no error", bad)
		}
	}
}

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// exampleSpecs returns the bundled examples.
func exampleSpecs(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}

// TestHalfTyped analyses every prefix of every example (in steps, to keep
// the test short) and asks every language feature at the cut, as an
// editor does while a file is typed: nothing may panic.
func TestHalfTyped(t *testing.T) {
	step := 13
	if testenv.Short(t) {
		step = 61
	}
	for path, text := range exampleSpecs(t) {
		for cut := 0; cut <= len(text); cut += step {
			d := newDocument("file:///x.wrap", 1, text[:cut])
			a := analyze(context.Background(), d, nil)
			if a.file == nil && len(a.diags) == 0 {
				t.Fatalf("%s cut at %d: no file and no diagnostics", path, cut)
			}
			if a.ix == nil {
				continue
			}
			outline(d, a.file)
			end := d.specPos(d.end())
			a.ix.visible(end)
			a.ix.members(end, receiver(d.text))
			a.ix.expectedEnum(end, d.text)
			enclosingCall(d.text)
			for i, r := range a.ix.refs {
				describe(a, r.obj)
				if i%17 == 0 {
					a.ix.conflict(r.obj, "x")
				}
			}
		}
	}
}

// TestExamplesResolve checks that every name in the examples refers to a
// declaration of that name. (That every identifier of a spec that checks
// resolves is spec's TestInfoCoversEveryIdent.)
func TestExamplesResolve(t *testing.T) {
	for path, text := range exampleSpecs(t) {
		a := analyze(context.Background(), newDocument("file:///x.wrap", 1, text), nil)
		if a.ix == nil {
			t.Errorf("%s: %+v", path, a.diags)
			continue
		}
		for _, r := range a.ix.refs {
			if r.obj.Name != r.name {
				t.Errorf("%s:%v: %s resolves to %s", path, r.pos, r.name, r.obj.Name)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	c := startServer(t, Options{})
	// Before initialize: an error, not a crash.
	if m := c.call("textDocument/hover", docPos(testURI, position{})); m.Error == nil || m.Error.Code != codeServerNotInit {
		t.Errorf("request before initialize: %+v", m)
	}
	c.initialize()
	// Not JSON, an unknown method, missing params, a document never opened.
	c.sendRaw("{not json")
	if m := c.call("no/such/method", map[string]any{}); m.Error == nil || m.Error.Code != codeMethodNotFound {
		t.Errorf("unknown method: %+v", m)
	}
	if m := c.call("textDocument/hover", nil); m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Errorf("missing params: %+v", m)
	}
	if m := c.call("textDocument/hover", map[string]any{"textDocument": 3}); m.Error == nil || m.Error.Code != codeInvalidParams {
		t.Errorf("params of the wrong shape: %+v", m)
	}
	if m := c.call("textDocument/hover", docPos("file:///never.wrap", position{})); m.Error == nil {
		t.Errorf("hover on a document never opened: %+v", m)
	}
	// Invalid UTF-8 inside the JSON string of a document.
	raw := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///bad.wrap","languageId":"wrap","version":1,"text":"spec S\nvar ` + "\xff\xfe" + `: bool\n"}}}`
	c.sendRaw(raw)
	if d := c.diagnostics("file:///bad.wrap", 1); len(d) == 0 {
		t.Errorf("invalid UTF-8: no diagnostic")
	}
	for _, method := range []string{"textDocument/hover", "textDocument/definition", "textDocument/completion"} {
		for ch := 0; ch < 12; ch++ {
			if m := c.call(method, docPos("file:///bad.wrap", position{Line: 1, Character: ch})); m.Error != nil {
				t.Errorf("%s on invalid UTF-8: %v", method, m.Error)
			}
		}
	}
	// Positions far outside the document.
	for _, p := range []position{{Line: 1000, Character: 5}, {Line: 0, Character: 1000}, {Line: -1, Character: -1}} {
		for _, method := range []string{"textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/references"} {
			if m := c.call(method, docPos("file:///bad.wrap", p)); m.Error != nil {
				t.Errorf("%s at %v: %v", method, p, m.Error)
			}
		}
	}
	// A 10 MB file: one diagnostic that says it is too large, promptly.
	var big strings.Builder
	big.WriteString("spec Big\n")
	for i := 0; big.Len() < 10<<20; i++ {
		big.WriteString("var v: 0..3 = 0 // padding padding padding padding padding\n")
	}
	start := time.Now()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///big.wrap", "languageId": "wrap", "version": 1, "text": big.String()}})
	d := c.diagnostics("file:///big.wrap", 1)
	if len(d) != 1 || !strings.Contains(d[0].Message, "too large") {
		t.Errorf("10 MB file: %+v", d)
	}
	for _, method := range []string{"textDocument/hover", "textDocument/completion", "textDocument/formatting", "textDocument/documentSymbol"} {
		if m := c.call(method, docPos("file:///big.wrap", position{Line: 5, Character: 5})); m.Error != nil {
			t.Errorf("%s on a 10 MB file: %v", method, m.Error)
		}
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("10 MB file took %v", el)
	}
	// The server still works.
	var h *hover
	c.open(testURI, approvalSpec)
	c.result("textDocument/hover", docPos(testURI, at(approvalSpec, "MAXV", 1)), &h)
	if h == nil {
		t.Errorf("no hover after the bad input")
	}
}

func TestFraming(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"empty input", "", false},
		{"no content length", "Foo: 1\r\n\r\n{}", true},
		{"bad content length", "Content-Length: x\r\n\r\n{}", true},
		{"truncated body", "Content-Length: 100\r\n\r\n{}", true},
		{"exit without shutdown", frame(`{"jsonrpc":"2.0","method":"exit"}`), true},
		{"shutdown then exit", frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`), false},
		{"too large", "Content-Length: 99999999999\r\n\r\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := NewServer(Options{}).Run(ctx, strings.NewReader(tt.in), &out)
			if (err != nil) != tt.wantErr {
				t.Errorf("Run = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func frame(body string) string {
	return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

var _ = io.EOF

// TestTypingThroughTheServer types a spec into the server in chunks and
// asks every request at the cursor after each one: no request may fail
// with an internal error, and the server must keep answering.
func TestTypingThroughTheServer(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	c.open(testURI, "")
	step := 37
	if testenv.Short(t) {
		step = 151
	}
	methods := []string{"textDocument/hover", "textDocument/definition", "textDocument/references", "textDocument/completion",
		"textDocument/signatureHelp", "textDocument/documentSymbol", "textDocument/formatting", "textDocument/foldingRange",
		"textDocument/semanticTokens/full", "textDocument/codeLens", "textDocument/prepareRename"}
	for v, cut := 2, 0; cut <= len(approvalSpec); v, cut = v+1, cut+step {
		text := approvalSpec[:cut]
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": v},
			"contentChanges": []map[string]any{{"text": text}}})
		d := newDocument(testURI, v, text)
		p := docPos(testURI, d.end())
		p["context"] = map[string]any{"includeDeclaration": true}
		p["newName"] = "renamed"
		for _, m := range methods {
			if r := c.call(m, p); r.Error != nil && r.Error.Code == codeInternalError {
				t.Fatalf("%s after %d bytes: %v", m, cut, r.Error)
			}
		}
		if r := c.call("textDocument/rename", p); r.Error != nil && r.Error.Code == codeInternalError {
			t.Fatalf("rename after %d bytes: %v", cut, r.Error)
		}
	}
}

package lsp

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// applyEdits applies LSP edits of one document to text.
func applyEdits(text string, edits []textEdit) string {
	d := newDocument("file:///x", 1, text)
	sort.Slice(edits, func(i, j int) bool { return d.offset(edits[i].Range.Start) > d.offset(edits[j].Range.Start) })
	for _, e := range edits {
		r := e.Range
		d = d.apply(1, textDocumentContentChangeEvent{Range: &r, Text: e.NewText})
	}
	return d.text
}

func TestRename(t *testing.T) {
	c := openApproval(t)
	tests := []struct {
		name    string
		at      position
		newName string
		refused string // the whole error; "" when the rename is done
		wantIn  []string
	}{
		{"global var", at(approvalSpec, "content", 2), "draft", "", []string{"var draft:  Version = 0", "approved := draft", "draft := draft + 1", "shipped := draft"}},
		{"let", at(approvalSpec, "answer", 1), "reply", "", []string{"let reply = ask checker(content)", "last := reply"}},
		{"field", at(approvalSpec, "v := content", 0), "version", "", []string{"record { version: Version", "doc.version := content"}},
		{"process local", at(approvalSpec, "edits >= 0", 0), "count_of_edits", "", []string{"var count_of_edits: 0..MAXV", "editor.count_of_edits >= 0"}},
		{"enum member", at(approvalSpec, "pass", 0), "ok_verdict", "", []string{"{ok_verdict, fail}", "result == ok_verdict", "last: Verdict = ok_verdict"}},
		{"collides with a global", at(approvalSpec, "content", 2), "approved", "cannot rename content to approved: it would collide with the var approved declared at 9:5", nil},
		{"collides with a type", at(approvalSpec, "content", 2), "Version", "cannot rename content to Version: it would collide with the type Version declared at 4:6", nil},
		{"captured by a local", at(approvalSpec, "content", 2), "answer", "cannot rename content to answer: it would collide with the let answer declared at 21:9", nil},
		{"let shadowing a global", at(approvalSpec, "answer", 1), "granted", "cannot rename answer to granted: it would collide with the var granted declared at 11:5", nil},
		{"keyword", at(approvalSpec, "content", 2), "release", "release is reserved", nil},
		{"not a name", at(approvalSpec, "content", 2), "2x", `"2x" is not a name`, nil},
		{"result", at(approvalSpec, "result", 0), "answer", "result is the agent's answer and cannot be renamed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := docPos(testURI, tt.at)
			p["newName"] = tt.newName
			m := c.call("textDocument/rename", p)
			if tt.refused != "" {
				if m.Error == nil {
					t.Fatalf("rename to %s: %s, want refused with %q", tt.newName, m.Result, tt.refused)
				}
				if diff := cmp.Diff(tt.refused, m.Error.Message); diff != "" {
					t.Errorf("rename to %s: error (-want +got):\n%s", tt.newName, diff)
				}
				return
			}
			out := renamed(t, m, approvalSpec)
			for _, w := range tt.wantIn {
				if !strings.Contains(out, w) {
					t.Errorf("renamed text lacks %q:\n%s", w, out)
				}
			}
			// Differential: the renamed spec checks to the same model shape.
			m1, err1 := spec.ParseFile("a.wrap", []byte(approvalSpec), spec.Options{})
			m2, err2 := spec.ParseFile("b.wrap", []byte(out), spec.Options{})
			if err1 != nil || err2 != nil {
				t.Fatalf("%v / %v", err1, err2)
			}
			if len(m1.Slots) != len(m2.Slots) || len(m1.Actions) != len(m2.Actions) {
				t.Errorf("the renamed spec has another shape")
			}
		})
	}
}

// TestRenameLiteralField renames a record field that record literals
// name, and main's action named in a fairness declaration: the names the
// checker resolves, which the language server once resolved on its own
// and missed (the rename was refused: the result no longer checked).
func TestRenameLiteralField(t *testing.T) {
	const text = `spec S
type R = record { a: bool, b: bool }
var r: R = record { a: true, b: false }
action flip { r := record { a: r.b, b: r.a } }
fairness weak main.flip
`
	c := startServer(t, Options{})
	c.initialize()
	if d := c.open(testURI, text); len(d) != 0 {
		t.Fatalf("diagnostics: %+v", d)
	}
	tests := []struct {
		name, anchor string
		skip         int // from the anchor to the name renamed
		newName      string
		want         string
	}{
		{"field from a literal", "record { a: true", len("record { "), "x", `spec S
type R = record { x: bool, b: bool }
var r: R = record { x: true, b: false }
action flip { r := record { x: r.b, b: r.x } }
fairness weak main.flip
`},
		{"action from fairness", "main.flip", len("main."), "toggle", `spec S
type R = record { a: bool, b: bool }
var r: R = record { a: true, b: false }
action toggle { r := record { a: r.b, b: r.a } }
fairness weak main.toggle
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := docPos(testURI, at(text, tt.anchor, 0).add(tt.skip))
			p["newName"] = tt.newName
			m := c.call("textDocument/rename", p)
			if m.Error != nil {
				t.Fatalf("rename: %v", m.Error)
			}
			var we struct{ Changes map[string][]textEdit }
			if err := json.Unmarshal(m.Result, &we); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, applyEdits(text, we.Changes[testURI])); diff != "" {
				t.Errorf("renamed text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFoldingSignatureSymbolsTokens(t *testing.T) {
	c := openApproval(t)
	doc := map[string]any{"textDocument": map[string]any{"uri": testURI}}
	var folds []foldingRange
	c.result("textDocument/foldingRange", doc, &folds)
	var got []int
	for _, f := range folds {
		got = append(got, f.StartLine, f.EndLine)
	}
	proc := at(approvalSpec, "process approver", 0).Line
	want := []int{proc, proc + 7, proc + 1, proc + 6}
	if len(got) < 4 || !cmp.Equal(want, got[:4]) {
		t.Errorf("folding ranges %v, want to start with %v", got, want)
	}

	half := strings.Replace(approvalSpec, "    let answer = ask checker(content)\n", "    let answer = ask checker(\n", 1)
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []map[string]any{{"text": half}}})
	var sh struct {
		Signatures      []signatureInformation
		ActiveParameter int
	}
	c.result("textDocument/signatureHelp", docPos(testURI, at(half, "checker(\n", 0).add(8)), &sh)
	if len(sh.Signatures) != 1 || sh.Signatures[0].Label != "checker(d: Version): Verdict" || sh.ActiveParameter != 0 {
		t.Errorf("signature help: %+v", sh)
	} else if l := sh.Signatures[0].Parameters[0].Label; sh.Signatures[0].Label[l[0]:l[1]] != "d: Version" {
		t.Errorf("parameter label %v", l)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 3},
		"contentChanges": []map[string]any{{"text": approvalSpec}}})

	var ws []workspaceSymbol
	c.result("workspace/symbol", map[string]any{"query": "ship"}, &ws)
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	if diff := cmp.Diff([]string{"shipped", "ShippedWhatWasApproved"}, names); diff != "" {
		t.Errorf("workspace symbols (-want +got):\n%s", diff)
	}

	var toks struct{ Data []int }
	c.result("textDocument/semanticTokens/full", doc, &toks)
	if len(toks.Data)%5 != 0 || len(toks.Data) == 0 {
		t.Fatalf("semantic tokens: %d numbers", len(toks.Data))
	}
	// Decode and check that each token covers the name it classifies.
	d := newDocument(testURI, 1, approvalSpec)
	line, char := 0, 0
	kinds := map[string]string{}
	for i := 0; i < len(toks.Data); i += 5 {
		if toks.Data[i] > 0 {
			line, char = line+toks.Data[i], toks.Data[i+1]
		} else {
			char += toks.Data[i+1]
		}
		start := d.offset(position{line, char})
		word := approvalSpec[start : start+toks.Data[i+2]]
		kinds[word] = semanticTokenTypes[toks.Data[i+3]]
	}
	for word, kind := range map[string]string{"approver": "namespace", "checker": "interface", "pass": "enumMember", "Version": "type", "answer": "variable", "approve": "method", "v": "property"} {
		if kinds[word] != kind {
			t.Errorf("semantic token of %s: %q, want %q", word, kinds[word], kind)
		}
	}
}

// renamed returns text with the edits of the rename answer m applied.
func renamed(t *testing.T, m *message, text string) string {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("rename: %v", m.Error)
	}
	var we struct{ Changes map[string][]textEdit }
	if err := json.Unmarshal(m.Result, &we); err != nil {
		t.Fatal(err)
	}
	return applyEdits(text, we.Changes[testURI])
}

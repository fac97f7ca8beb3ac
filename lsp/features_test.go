package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func openApproval(t *testing.T) *client {
	t.Helper()
	c := startServer(t, Options{})
	c.initialize()
	if d := c.open(testURI, approvalSpec); len(d) != 0 {
		t.Fatalf("approval spec has diagnostics: %+v", d)
	}
	return c
}

func TestHover(t *testing.T) {
	c := openApproval(t)
	tests := []struct {
		name string
		pos  position
		want []string // substrings of the hover text
	}{
		{"const value", at(approvalSpec, "MAXV", 1), []string{"const MAXV = 3", "value: `3`"}},
		{"var range", at(approvalSpec, "content", 1), []string{"var content: Version = 0", "values: `0..3`"}},
		{"type", at(approvalSpec, "Version", 0), []string{"type Version = 0..MAXV", "values: `0..3`"}},
		{"agent signature and assume", at(approvalSpec, "checker", 1), []string{"agent checker(d: Version): Verdict", "assume result == pass implies d < MAXV", "chaotic"}},
		{"enum member", at(approvalSpec, "pass", 1), []string{"member of Verdict", "{pass, fail}"}},
		{"let", at(approvalSpec, "answer", 1), []string{"(let) answer: Verdict"}},
		{"record field", at(approvalSpec, "v := content", 0), []string{"(field) v: Version"}},
		{"process local", at(approvalSpec, "edits >= 0", 0), []string{"var editor.edits: 0..MAXV", "values: `0..3`"}},
		{"process", at(approvalSpec, "editor", 0), []string{"process editor", "1 variables, 1 actions"}},
		{"result", at(approvalSpec, "result", 0), []string{"(result) result: Verdict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h *hover
			c.result("textDocument/hover", docPos(testURI, tt.pos), &h)
			if h == nil {
				t.Fatalf("no hover at %v", tt.pos)
			}
			for _, w := range tt.want {
				if !strings.Contains(h.Contents.Value, w) {
					t.Errorf("hover at %v = %q, want it to contain %q", tt.pos, h.Contents.Value, w)
				}
			}
		})
	}
	var h *hover
	c.result("textDocument/hover", docPos(testURI, position{Line: 1, Character: 0}), &h)
	if h != nil {
		t.Errorf("hover on a blank line = %+v, want null", h)
	}
}

func TestDefinitionAndReferences(t *testing.T) {
	c := openApproval(t)
	tests := []struct {
		name string
		from position
		decl position // where the name is declared
		uses int      // references, declaration included
	}{
		{"global var", at(approvalSpec, "content", 3), at(approvalSpec, "content", 0), 8},
		{"const in type", at(approvalSpec, "MAXV", 1), at(approvalSpec, "MAXV", 0), 5},
		{"agent from ask", at(approvalSpec, "checker(content)", 0), at(approvalSpec, "checker", 0), 2},
		{"let", at(approvalSpec, "answer", 1), at(approvalSpec, "answer", 0), 2},
		{"enum member", at(approvalSpec, "pass", 2), at(approvalSpec, "pass", 0), 3},
		{"field", at(approvalSpec, "ok == doc.ok", 0), at(approvalSpec, "ok: bool", 0), 3},
		{"process local from outside", at(approvalSpec, "edits >= 0", 0), at(approvalSpec, "edits", 0), 4},
		{"type", at(approvalSpec, "Doc\n", 0), at(approvalSpec, "Doc", 0), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var locs []location
			c.result("textDocument/definition", docPos(testURI, tt.from), &locs)
			if len(locs) != 1 || locs[0].Range.Start != tt.decl || locs[0].URI != testURI {
				t.Fatalf("definition from %v = %+v, want %v", tt.from, locs, tt.decl)
			}
			p := docPos(testURI, tt.from)
			p["context"] = map[string]any{"includeDeclaration": true}
			c.result("textDocument/references", p, &locs)
			if len(locs) != tt.uses {
				t.Errorf("references from %v: got %d %+v, want %d", tt.from, len(locs), locs, tt.uses)
			}
			p["context"] = map[string]any{"includeDeclaration": false}
			c.result("textDocument/references", p, &locs)
			for _, l := range locs {
				if l.Range.Start == tt.decl {
					t.Errorf("references without declaration include it: %+v", locs)
				}
			}
		})
	}
}

func TestDocumentSymbols(t *testing.T) {
	c := openApproval(t)
	var syms []documentSymbol
	c.result("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &syms)
	var got []string
	var walk func(prefix string, ss []documentSymbol)
	walk = func(prefix string, ss []documentSymbol) {
		for _, s := range ss {
			got = append(got, prefix+s.Name)
			if s.Range.Start.Line > s.SelectionRange.Start.Line || s.Range.End.Line < s.SelectionRange.End.Line {
				t.Errorf("%s: range %+v does not contain selection %+v", s.Name, s.Range, s.SelectionRange)
			}
			walk(prefix+s.Name+".", s.Children)
		}
	}
	walk("", syms)
	want := []string{"MAXV", "Version", "Verdict", "Verdict.pass", "Verdict.fail", "Doc", "Doc.v", "Doc.ok",
		"content", "approved", "doc", "granted", "released", "shipped", "last", "checker",
		"approver", "approver.approve", "editor", "editor.edits", "editor.edit", "releaser", "releaser.release",
		"ShippedWhatWasApproved", "terminal"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("symbols (-want +got):\n%s", diff)
	}
}

func TestFormatting(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	messy := "spec   S\nvar x :bool=false\naction a   when not x { x:=true }\n"
	c.open(testURI, messy)
	var edits []textEdit
	c.result("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": testURI}, "options": map[string]any{"tabSize": 2, "insertSpaces": true}}, &edits)
	f, err := syntax.Parse("x.wrap", []byte(messy))
	if err != nil {
		t.Fatal(err)
	}
	want := []textEdit{{Range: lspRange{End: position{Line: 3}}, NewText: string(syntax.Format(f))}}
	if diff := cmp.Diff(want, edits); diff != "" {
		t.Errorf("formatting (-want +got):\n%s", diff)
	}
	// Formatted already: no edit. Not parsable: null.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []map[string]any{{"text": string(syntax.Format(f))}}})
	c.result("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": testURI}}, &edits)
	if len(edits) != 0 {
		t.Errorf("formatting a formatted file: %+v, want none", edits)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 3},
		"contentChanges": []map[string]any{{"text": "spec S\nvar x: \n"}}})
	m := c.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": testURI}})
	if m.Error != nil || string(m.Result) != "null" {
		t.Errorf("formatting a file with a syntax error: %s %v, want null", m.Result, m.Error)
	}
}

func labels(l completionList) []string {
	var out []string
	for _, it := range l.Items {
		if it.Kind != completionKindKeyword {
			out = append(out, it.Label)
		}
	}
	return out
}

func TestCompletion(t *testing.T) {
	c := openApproval(t)
	complete := func(text string, p position) completionList {
		t.Helper()
		c.nextID++
		v := c.nextID + 100
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": v},
			"contentChanges": []map[string]any{{"text": text}}})
		var l completionList
		c.result("textDocument/completion", docPos(testURI, p), &l)
		return l
	}
	// A half-typed selector: the file does not parse, the names come from
	// the last version that did.
	half := strings.Replace(approvalSpec, "    shipped := content\n", "    shipped := doc.\n", 1)
	l := complete(half, at(half, "doc.\n", 0).add(4))
	if diff := cmp.Diff([]string{"v", "ok"}, labels(l)); diff != "" {
		t.Errorf("record fields (-want +got):\n%s", diff)
	}
	half = strings.Replace(approvalSpec, "    shipped := content\n", "    shipped := editor.\n", 1)
	l = complete(half, at(half, "editor.\n", 0).add(7))
	if diff := cmp.Diff([]string{"edits"}, labels(l)); diff != "" {
		t.Errorf("process locals (-want +got):\n%s", diff)
	}
	// An enum type's members (Type.member, an extension)
	half = strings.Replace(approvalSpec, "    shipped := content\n", "    shipped := Verdict.\n", 1)
	l = complete(half, at(half, "Verdict.\n", 0).add(8))
	if diff := cmp.Diff([]string{"pass", "fail"}, labels(l)); diff != "" {
		t.Errorf("enum members (-want +got):\n%s", diff)
	}
	// Names in scope: the let `answer` inside approve, not elsewhere; enum
	// members first after `last ==`.
	in := at(approvalSpec, "    last := answer", 0)
	l = complete(approvalSpec, position{Line: in.Line, Character: 4})
	names := strings.Join(labels(l), " ")
	for _, w := range []string{"answer", "content", "MAXV", "checker", "pass", "Version"} {
		if !strings.Contains(" "+names+" ", " "+w+" ") {
			t.Errorf("completion in approve lacks %s: %s", w, names)
		}
	}
	if strings.Contains(" "+names+" ", " edits ") {
		t.Errorf("completion in approver offers editor's local edits: %s", names)
	}
	// every word of the language (spec/syntax's table), once: the
	// keywords, the contextual words and the builtin functions
	offered := map[string]int{}
	for _, it := range l.Items {
		if strings.HasPrefix(it.SortText, "2") {
			offered[it.Label]++
		}
	}
	for _, w := range syntax.Words() {
		if n := offered[w.Name]; w.Kind != syntax.Predeclared && n != 1 {
			t.Errorf("completion offers the %s word %s %d times, want once", w.Kind, w.Name, n)
		}
		delete(offered, w.Name)
	}
	if len(offered) > 0 {
		t.Errorf("completion offers words the language does not have: %v", offered)
	}
	half = strings.Replace(approvalSpec, "    last := answer\n", "    last := \n", 1)
	l = complete(half, at(half, "last := \n", 0).add(8))
	first := map[string]bool{}
	for _, it := range l.Items {
		if strings.HasPrefix(it.SortText, "0") {
			first[it.Label] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"pass": true, "fail": true}, first); diff != "" {
		t.Errorf("enum members first (-want +got):\n%s", diff)
	}
}

func (p position) add(n int) position { return position{Line: p.Line, Character: p.Character + n} }

// TestCompletionWordKinds: a reserved or contextual word is offered as a
// keyword, a builtin as a function, and a spec's own fn of a builtin's
// name as itself alone.
func TestCompletionWordKinds(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	src := "spec S\nvar q: seq[2] of bool\nfn len(x: bool): bool = x\ninvariant I: \n"
	c.open(testURI, src)
	var l completionList
	c.result("textDocument/completion", docPos(testURI, at(src, "I: \n", 0).add(3)), &l)
	kinds := map[string][]int{}
	for _, it := range l.Items {
		kinds[it.Label] = append(kinds[it.Label], it.Kind)
	}
	want := map[string][]int{"for": {completionKindKeyword}, "forall": {completionKindKeyword},
		"expected": {completionKindKeyword}, "head": {completionKindFunction}, "card": {completionKindFunction},
		"len": {completionKindFunction}}
	for w, k := range want {
		if diff := cmp.Diff(k, kinds[w]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", w, diff)
		}
	}
}

func TestQuickFix(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	diags := c.open(testURI, "spec S\nvar critical: bool\ninvariant I: critcal\n")
	var acts []codeAction
	c.result("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": testURI},
		"range": diags[0].Range, "context": map[string]any{"diagnostics": diags}}, &acts)
	if len(acts) != 1 {
		t.Fatalf("code actions: %+v, want one", acts)
	}
	want := map[string][]textEdit{testURI: {{Range: lspRange{Start: position{2, 13}, End: position{2, 20}}, NewText: "critical"}}}
	if diff := cmp.Diff(want, acts[0].Edit.Changes); diff != "" {
		t.Errorf("quick fix (-want +got):\n%s", diff)
	}
}

func TestIncrementalChange(t *testing.T) {
	c := startServer(t, Options{})
	c.initialize()
	c.open(testURI, "spec S\nvar x: bool\naction a { x := not x }\n")
	// Replace `x := not x` by `y := not x` with a range edit: an error.
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": 2},
		"contentChanges": []map[string]any{{"range": lspRange{Start: position{2, 11}, End: position{2, 12}}, "text": "y"}}})
	d := c.diagnostics(testURI, 2)
	if len(d) != 1 || d[0].Message != "undefined: y" {
		t.Fatalf("after the edit: %+v", d)
	}
}

func TestDebounce(t *testing.T) {
	c := startServer(t, Options{Debounce: 200 * time.Millisecond})
	c.initialize()
	c.open(testURI, "spec S\nvar x: bool\naction a { x := not x }\n")
	for v := 2; v <= 20; v++ {
		c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": testURI, "version": v},
			"contentChanges": []map[string]any{{"text": "spec S\nvar x: bool\naction a { x := not " + strings.Repeat("y", v) + " }\n"}}})
	}
	d := c.diagnostics(testURI, 20)
	if len(d) != 1 || d[0].Message != "undefined: "+strings.Repeat("y", 20) {
		t.Fatalf("diagnostics of the last version: %+v", d)
	}
	// No diagnostics were published for the versions in between.
	close := time.After(300 * time.Millisecond)
	for {
		select {
		case m := <-c.notes:
			var p publishDiagnosticsParams
			json.Unmarshal(m.Params, &p)
			t.Errorf("late publish for version %v", *p.Version)
		case <-close:
			return
		}
	}
}

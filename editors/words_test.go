package editors

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// wordScopes returns the words of the TextMate grammar's word lists (the
// matches `\b(a|b|c)\b`, read as the playground's highlighter reads them,
// web/src/lang.js) with the scope of each.
func wordScopes(t *testing.T) map[string]string {
	data, err := os.ReadFile("vscode/syntaxes/wrap.tmLanguage.json")
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	list := regexp.MustCompile(`^\\b\(?([a-z|]+)\)?\\b$`)
	out := map[string]string{}
	var walk func(n any)
	walk = func(n any) {
		switch n := n.(type) {
		case []any:
			for _, x := range n {
				walk(x)
			}
		case map[string]any:
			m, _ := n["match"].(string)
			name, _ := n["name"].(string)
			if sub := list.FindStringSubmatch(m); sub != nil && name != "" {
				for _, w := range strings.Split(sub[1], "|") {
					if prev, ok := out[w]; ok {
						t.Errorf("%s is in two word lists of the grammar: %s and %s", w, prev, name)
					}
					out[w] = name
				}
			}
			for _, x := range n {
				walk(x)
			}
		}
	}
	walk(g)
	return out
}

// wordScope says which scopes may colour a word of each kind: the
// playground's highlighter shows keyword.* and storage.* as keywords.
func wordScope(k syntax.WordKind, scope string) bool {
	switch k {
	case syntax.Builtin:
		return strings.HasPrefix(scope, "support.function.")
	case syntax.Predeclared:
		return strings.HasPrefix(scope, "variable.language.")
	}
	for _, p := range []string{"keyword.", "storage.", "constant.language.", "support.type."} {
		if strings.HasPrefix(scope, p) {
			return true
		}
	}
	return false
}

// TestGrammarKnowsEveryWord holds the VS Code extension's TextMate
// grammar (also the playground's highlighting) to the language's table
// of words (spec/syntax.Words, which the parser's own words are held to):
// every keyword, contextual word, builtin and predeclared name is in one
// of its word lists, with a scope of its kind, and the lists hold no
// other word.
func TestGrammarKnowsEveryWord(t *testing.T) {
	scopes := wordScopes(t)
	for _, w := range syntax.Words() {
		scope, ok := scopes[w.Name]
		switch {
		case !ok:
			t.Errorf("the TextMate grammar lacks the %s word %s", w.Kind, w.Name)
		case !wordScope(w.Kind, scope):
			t.Errorf("the TextMate grammar colours the %s word %s as %s", w.Kind, w.Name, scope)
		}
		delete(scopes, w.Name)
	}
	for w, scope := range scopes {
		t.Errorf("the TextMate grammar colours %s as %s, but it is no word of the language", w, scope)
	}
}

// vimGroups returns the words of editors/nvim/syntax/wrap.vim's `syn
// keyword` lists with the group of each.
func vimGroups(t *testing.T) map[string]string {
	data, err := os.ReadFile("nvim/syntax/wrap.vim")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "syn" || f[1] != "keyword" {
			continue
		}
		for _, w := range f[3:] {
			if prev, ok := out[w]; ok {
				t.Errorf("%s is in two keyword lists of wrap.vim: %s and %s", w, prev, f[2])
			}
			out[w] = f[2]
		}
	}
	return out
}

// TestNeovimSyntax holds the Vim/Neovim syntax file to the language's
// table of words, as TestGrammarKnowsEveryWord does the TextMate
// grammar, then opens a .wrap file of every word in a headless Neovim with
// editors/nvim on its runtime path and reads the syntax group of each
// word back: the file is detected as wrap, not as a Meson wrap file
// (dosini), and colours every word.
func TestNeovimSyntax(t *testing.T) {
	groups := vimGroups(t)
	var lines []string
	for _, w := range syntax.Words() {
		g, ok := groups[w.Name]
		switch {
		case !ok:
			t.Errorf("wrap.vim lacks the %s word %s", w.Kind, w.Name)
		case (w.Kind == syntax.Builtin) != (g == "wrapBuiltin"), (w.Kind == syntax.Predeclared) != (g == "wrapPredeclared"):
			t.Errorf("wrap.vim colours the %s word %s as %s", w.Kind, w.Name, g)
		}
		lines = append(lines, w.Name)
	}
	for _, w := range lines {
		delete(groups, w)
	}
	for w, g := range groups {
		t.Errorf("wrap.vim colours %s as %s, but it is no word of the language", w, g)
	}
	rtp, err := filepath.Abs("nvim")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "words.wrap")
	lines = append(lines, "notaword")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lua := "RTP = " + quote(rtp) + "\nFILE = " + quote(file) + `
vim.opt.runtimepath:prepend(RTP)
vim.cmd('runtime! ftdetect/wrap.vim')
vim.cmd('syntax on')
vim.cmd('edit ' .. vim.fn.fnameescape(FILE))
local res = { filetype = vim.bo.filetype, groups = {} }
for l = 1, vim.fn.line('$') do
  res.groups[vim.fn.getline(l)] = vim.fn.synIDattr(vim.fn.synID(l, 1, 1), 'name')
end
local f = io.open(OUT, 'w')
f:write(vim.fn.json_encode(res))
f:close()
vim.cmd('qa!')
`
	b := testenv.Neovim(t, dir, lua)
	var got struct {
		Filetype string
		Groups   map[string]string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Filetype != "wrap" {
		t.Errorf("nvim's filetype of a .wrap file: %q, want wrap", got.Filetype)
	}
	want := vimGroups(t)
	want["notaword"] = ""
	if diff := cmp.Diff(want, got.Groups); diff != "" {
		t.Errorf("syntax groups in nvim (-want +got):\n%s", diff)
	}
}

package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// nvimScript drives Neovim's built-in LSP client (0.7 and later): it
// opens a spec with an error, waits for the diagnostics, asks hover,
// definition and completion, then replaces the text with a valid but untidy spec and
// formats it, then with a spec whose invariant fails, and runs the check
// code lens as a user does (:lua vim.lsp.codelens.run()). It writes what
// it saw as JSON to OUT.
const nvimScript = `
local out = {}
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(SPEC))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'wrapcheck', cmd = { SERVER }, cmd_env = { WRAPCHECK_LSP_SERVE = '1' }, root_dir = DIR,
  })
  assert(id, 'start_client failed')
  vim.lsp.buf_attach_client(buf, id)
  out.got_diagnostics = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message })
  end
  local uri = vim.uri_from_bufnr(buf)
  local function request(method, params)
    local r = vim.lsp.buf_request_sync(buf, method, params, 10000)
    assert(r and r[id], method .. ': no response')
    assert(not r[id].err, method .. ': ' .. vim.inspect(r[id].err))
    return r[id].result
  end
  local h = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = 2, character = 13 } })
  out.hover = h.contents.value
  local d = request('textDocument/definition', { textDocument = { uri = uri }, position = { line = 2, character = 13 } })
  out.definition = d[1].range.start
  local c = request('textDocument/completion', { textDocument = { uri = uri }, position = { line = 2, character = 11 } })
  out.completion = {}
  for _, it in ipairs(c.items or c) do table.insert(out.completion, it.label) end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(UNTIDY, '\n', { plain = true }))
  out.fixed = vim.wait(20000, function() return #vim.diagnostic.get(buf) == 0 end, 20)
  local edits = request('textDocument/formatting', { textDocument = { uri = uri }, options = { tabSize = 2, insertSpaces = true } })
  vim.lsp.util.apply_text_edits(edits, buf, 'utf-16')
  out.formatted = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  local messages = {}
  local show = vim.lsp.handlers['window/showMessage']
  vim.lsp.handlers['window/showMessage'] = function(e, result, ctx, config)
    table.insert(messages, result)
    return show(e, result, ctx, config)
  end
  local function lenses()
    local titles = {}
    for _, l in ipairs(vim.lsp.codelens.get(buf)) do
      if l.command then table.insert(titles, l.command.title) end
    end
    return titles
  end
  vim.v.errmsg = ''
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(VIOLATED, '\n', { plain = true }))
  vim.lsp.codelens.refresh()
  vim.wait(20000, function() return #lenses() > 0 end, 20)
  out.lenses_before = lenses()
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  vim.lsp.codelens.run()
  vim.wait(20000, function() return #messages > 0 end, 20)
  out.messages = messages
  vim.wait(20000, function()
    vim.lsp.codelens.refresh()
    vim.wait(200)
    local l = lenses()
    return #l > 0 and l[1] ~= out.lenses_before[1]
  end, 50)
  out.lenses_after = lenses()
  -- :WrapcheckWatch, as editors/README.md defines it
  dofile(WATCH_LUA)
  local function float_text()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= '' then
        return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), '\n')
      end
    end
    return ''
  end
  vim.cmd('WrapcheckWatch x + 1')
  vim.wait(20000, function() return float_text():find('watch x + 1', 1, true) ~= nil end, 20)
  out.watch_one = float_text()
  vim.cmd('WrapcheckWatch y')
  vim.wait(20000, function() return float_text():find('undefined: y', 1, true) ~= nil end, 20)
  out.watch_two = float_text()
  out.errmsg = vim.v.errmsg
end)
if not ok then out.error = tostring(err) end
local f = io.open(OUT, 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
`

func TestNeovim(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "toggle.wrap")
	text := "spec Toggle\nvar critical: bool\naction a { critical := not critcal }\n"
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	untidy := "spec   Toggle\nvar critical :bool\naction a   { critical:=not critical }"
	violated := "spec Count\nvar x: 0..3\naction a when x != 3 { x := x + 1 }\ninvariant Small: x != 2\nterminal x == 3"
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	readme, err := os.ReadFile("../editors/README.md")
	if err != nil {
		t.Fatal(err)
	}
	watchLua := filepath.Join(dir, "watch.lua")
	if err := os.WriteFile(watchLua, []byte(luaBlock(t, string(readme), "WrapcheckWatch")), 0o644); err != nil {
		t.Fatal(err)
	}
	header := "WATCH_LUA = " + quote(watchLua) + "\nSPEC = " + quote(spec) + "\nSERVER = " + quote(self) + "\nDIR = " + quote(dir) +
		"\nUNTIDY = " + quote(untidy) + "\nVIOLATED = " + quote(violated) + "\n"
	b := testenv.Neovim(t, dir, header+nvimScript)
	var got struct {
		Error          string
		GotDiagnostics bool `json:"got_diagnostics"`
		Diagnostics    []struct {
			Lnum    int
			Col     int
			EndCol  int `json:"end_col"`
			Message string
		}
		Hover        string
		Definition   position
		Completion   []string
		Fixed        bool
		Formatted    string
		LensesBefore []string `json:"lenses_before"`
		LensesAfter  []string `json:"lenses_after"`
		Messages     []struct {
			Type    int
			Message string
		}
		WatchOne string `json:"watch_one"`
		WatchTwo string `json:"watch_two"`
		Errmsg   string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if got.Error != "" {
		t.Fatalf("the nvim script failed: %s", got.Error)
	}
	if !got.GotDiagnostics || len(got.Diagnostics) != 1 || got.Diagnostics[0].Message != "undefined: critcal (did you mean critical?)" ||
		got.Diagnostics[0].Lnum != 2 || got.Diagnostics[0].Col != 27 || got.Diagnostics[0].EndCol != 34 {
		t.Errorf("diagnostics in nvim: %+v", got.Diagnostics)
	}
	if !strings.Contains(got.Hover, "var critical: bool") {
		t.Errorf("hover in nvim: %q", got.Hover)
	}
	if got.Definition != (position{Line: 1, Character: 4}) {
		t.Errorf("definition in nvim: %+v, want 1:4", got.Definition)
	}
	// completion offers every word of the language (spec/syntax's table,
	// which the parser's words are held to), `chan` the day it is one
	for _, w := range syntax.Words() {
		if w.Kind != syntax.Predeclared && !slices.Contains(got.Completion, w.Name) {
			t.Errorf("completion in nvim lacks the %s word %s", w.Kind, w.Name)
		}
	}
	if !got.Fixed {
		t.Errorf("the diagnostics did not clear after the fix")
	}
	f, err := syntax.Parse("x.wrap", []byte(untidy))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(string(syntax.Format(f)), "\n")
	if diff := cmp.Diff(want, got.Formatted); diff != "" {
		t.Errorf("formatted in nvim (-want +got):\n%s", diff)
	}
	// The check lens shows a violation as a result: a warning, not an
	// error ("Error detected while processing"), and the lens's new title.
	if diff := cmp.Diff([]string{"check Small"}, got.LensesBefore); diff != "" {
		t.Errorf("code lenses before the check (-want +got):\n%s", diff)
	}
	if len(got.Messages) != 1 || got.Messages[0].Type != 2 || !strings.HasPrefix(got.Messages[0].Message, "violated: Small (2 steps): ") {
		t.Errorf("the check's message in nvim: %+v, want one warning that starts \"violated: Small (2 steps): \"", got.Messages)
	}
	if diff := cmp.Diff([]string{"violated: Small (2 steps)"}, got.LensesAfter); diff != "" {
		t.Errorf("code lenses after the check (-want +got):\n%s", diff)
	}
	// :WrapcheckWatch shows the trace with a line per watch at every step;
	// a watch that does not check shows its error, the others stay.
	for _, w := range []string{"watch x + 1: 1", "watch x + 1: 2", "watch x + 1: 3", "violated"} {
		if !strings.Contains(got.WatchOne, w) {
			t.Errorf(":WrapcheckWatch x + 1 shows no %q:\n%s", w, got.WatchOne)
		}
	}
	if !strings.Contains(got.WatchTwo, "watch:2:1: undefined: y") || !strings.Contains(got.WatchTwo, "watch x + 1: 3") {
		t.Errorf(":WrapcheckWatch y:\n%s", got.WatchTwo)
	}
	if got.Errmsg != "" {
		t.Errorf("nvim reported an error: %q", got.Errmsg)
	}
}

// luaBlock returns the ```lua block of the Markdown md that holds word.
func luaBlock(t *testing.T, md, word string) string {
	t.Helper()
	for _, part := range strings.Split(md, "```lua\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		if strings.Contains(block, word) {
			return block
		}
	}
	t.Fatalf("no lua block with %s", word)
	return ""
}

// Package editors holds the editor integrations of wrapcheck (see
// README.md) and the test that builds and tests the VS Code extension.
package editors

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestVSCode runs `npm ci`, `npm test` (the trace panel's build, and the
// grammar tokenizes every example without an unknown token) and `npm run
// package` (the .vsix builds) in editors/vscode, then tests the trace
// panel (testPanel). It needs npm and the npm registry; it skips without
// npm, and fails when CI=true.
func TestVSCode(t *testing.T) {
	npm := testenv.Tool(t, "npm", "install Node.js and npm (apt-get install npm)")
	testenv.Slow(t, "npm ci from the npm registry, then the VS Code extension's build")
	dir, err := filepath.Abs("vscode")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, args := range [][]string{
		{"ci", "--no-audit", "--no-fund"},
		{"test"},
		{"run", "package", "--", "--out", filepath.Join(out, "wrap.vsix")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("npm %v: %v\n%s", args, err, b)
		}
		t.Logf("npm %v:\n%s", args, b)
	}
	fi, err := os.Stat(filepath.Join(out, "wrap.vsix"))
	if err != nil || fi.Size() == 0 {
		t.Fatalf("no .vsix: %v", err)
	}
	t.Run("panel", func(t *testing.T) { testPanel(t, dir) })
}

// panelShown is what test/panel.mjs saw of one check: the server's
// message and lens title after the check, and the trace panel's page.
type panelShown struct {
	Check   string
	Message struct {
		Type    int
		Message string
	}
	Lens    []string
	Verdict string
	Shape   string
	Rows    []struct {
		Class string
		Cells []string
	}
	Notes       []string
	Diagram     bool
	DiagramText string
	Errors      []string
	// Watch is the watch box after "draft + 1" and "drfat" were typed:
	// the messages the panel posted, the watches the extension's handler
	// kept, the watch columns' heads, the first column, the box's list.
	Watch struct {
		Messages []struct{ Watches []string }
		Saved    []string
		Heads    []string
		Column   []string
		List     []string
	}
}

// testPanel runs test/panel.mjs: through the language server (a wrapcheck
// built here), the check lens's command and wrapcheck.trace, then the
// panel's page in headless Chromium, on an invariant's trace and a
// lasso, and checks what the page shows.
func testPanel(t *testing.T, dir string) {
	node := testenv.Tool(t, "node", "install Node.js")
	chromium := testenv.Tool(t, "chromium", "install Chromium (apt-get install chromium)")
	wrapcheck := filepath.Join(t.TempDir(), "wrapcheck")
	if b, err := exec.Command("go", "build", "-o", wrapcheck, "../cmd/wrapcheck").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "test/panel.mjs", wrapcheck, chromium,
		"../../docs/testdata/tutorial/gate.wrap:ShipsWhatWasApproved", "../../docs/testdata/tutorial/gate_live.wrap:EveryRunEnds")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node test/panel.mjs: %v\n%s%s", err, b, stderr.Bytes())
	}
	var got []panelShown
	if err := json.Unmarshal(b, &got); err != nil || len(got) != 2 {
		t.Fatalf("panel.mjs printed %s (%v)", b, err)
	}
	inv, lasso := got[0], got[1]
	for _, g := range got {
		if len(g.Errors) > 0 {
			t.Errorf("%s: errors in the panel: %q", g.Check, g.Errors)
		}
		if g.Message.Type != 2 || !strings.HasPrefix(g.Message.Message, "violated: ") {
			t.Errorf("%s: the check's message %+v, want a warning \"violated: …\"", g.Check, g.Message)
		}
		if !g.Diagram || !strings.Contains(g.DiagramText, "author") {
			t.Errorf("%s: no sequence diagram (%q)", g.Check, g.DiagramText)
		}
	}
	cells := func(g panelShown) []string {
		var out []string
		for _, r := range g.Rows {
			out = append(out, r.Class+"|"+strings.Join(r.Cells, "|"))
		}
		return out
	}
	want := []string{
		"|0|initial state||draft = 0\napproved = false\nrejected = false\nreleased = false\nshipped = 0\nseen = 0|",
		"|1|review.decide|reviewer → true|approved = true|",
		"|2|author.write|writer → 1|draft = 1|",
		"|3|gate.release||released = true\nshipped = 1|",
		"violated|invariant ShipsWhatWasApproved is false here: shipped == seen: false",
	}
	if diff := cmp.Diff(want, cells(inv)); diff != "" {
		t.Errorf("the invariant's trace table (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"violated: ShipsWhatWasApproved (3 steps)"}, inv.Lens); diff != "" {
		t.Errorf("the lens after the check (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(inv.Verdict, "Gate: violated — invariant ShipsWhatWasApproved at ") || inv.Shape != "3 steps from the initial state" {
		t.Errorf("the invariant's panel: %q, %q", inv.Verdict, inv.Shape)
	}
	wantLasso := []string{
		"|0|initial state||draft = 0\napproved = false\napprovedDoc = 0\nrejected = false\nreleased = false\nshipped = 0\nseen = 0|",
		"cycle loopstart|1|author.write|writer → 0||",
		"back|… and back to step 1, forever",
	}
	if diff := cmp.Diff(wantLasso, cells(lasso)); diff != "" {
		t.Errorf("the lasso's trace table (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"check ShipsWhatWasApproved", "violated: EveryRunEnds (1 step, a lasso)"}, lasso.Lens); diff != "" {
		t.Errorf("the lens after the check (-want +got):\n%s", diff)
	}
	if len(lasso.Notes) != 1 || !strings.HasPrefix(lasso.Notes[0], "note: the cycle starves review") {
		t.Errorf("the lasso's notes: %q", lasso.Notes)
	}
	if lasso.Shape != "a lasso: 0 steps, then a cycle of 1 step repeated forever" {
		t.Errorf("the lasso's shape: %q", lasso.Shape)
	}
	// The watch box: a column per watch with its value at every step,
	// evaluated by the server; a bad one's error in the box; each change
	// posted to the extension, which keeps the watches.
	for _, tt := range []struct {
		g      panelShown
		column []string
	}{{inv, []string{"1", "1", "2", "2"}}, {lasso, []string{"1", "1"}}} {
		w := tt.g.Watch
		var posted [][]string
		for _, m := range w.Messages {
			posted = append(posted, m.Watches)
		}
		if diff := cmp.Diff([][]string{{"draft + 1"}, {"draft + 1", "drfat"}}, posted); diff != "" {
			t.Errorf("%s: the panel's messages (-want +got):\n%s", tt.g.Check, diff)
		}
		if diff := cmp.Diff([]string{"draft + 1", "drfat"}, w.Saved); diff != "" {
			t.Errorf("%s: the watches kept (-want +got):\n%s", tt.g.Check, diff)
		}
		if diff := cmp.Diff([]string{"draft + 1"}, w.Heads); diff != "" {
			t.Errorf("%s: the watch columns (-want +got):\n%s", tt.g.Check, diff)
		}
		if diff := cmp.Diff(tt.column, w.Column); diff != "" {
			t.Errorf("%s: the column of draft + 1 (-want +got):\n%s", tt.g.Check, diff)
		}
		if diff := cmp.Diff([]string{"draft + 1 ", "drfat watch:2:1: undefined: drfat (did you mean draft?)"}, w.List); diff != "" {
			t.Errorf("%s: the watch box (-want +got):\n%s", tt.g.Check, diff)
		}
	}
}

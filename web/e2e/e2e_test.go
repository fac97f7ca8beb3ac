// Package e2e holds the end-to-end test of the playground in headless
// Chromium.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// need returns the path of a tool, skipping the test when it is absent
// and failing when CI=true (.ci/run installs it).
func need(t *testing.T, name string) string {
	t.Helper()
	p := testenv.Tool(t, name, "install "+name)
	return p
}

// TestPlaygroundInChromium builds web/dist (the wasm and the bundle),
// serves it on 127.0.0.1 and runs web/e2e.mjs in headless Chromium,
// asserting what a user sees: at the load event the editor holds the
// TOCTOU example and no "loading" message shows; its trace table and
// sequence diagram (text no smaller than the page's), the watch box (a
// column per watch, a bad one's error, both kept across checks and in the
// share link), the explorer
// (actions and agent answers), the lesson's lasso in wrap's notation with
// its fairness note and its Markdown drawn, the explore buttons inside a
// 1400-px window beside a long value, an error underlined while typing
// (before Check), a long run cancelled, the share link. It logs the times
// after navigation (editor, checker ready, first counterexample).
// Screenshots go to web/testdata.
func TestPlaygroundInChromium(t *testing.T) {
	chromium := need(t, "chromium")
	node := need(t, "node")
	npm := need(t, "npm")
	if testenv.Short(t) {
		t.Skip("-short: skipping the browser test")
	}
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "puppeteer-core")); err != nil {
		testenv.Slow(t, "npm ci from the npm registry")
		run(t, web, npm, "ci", "--no-audit", "--no-fund")
	}
	run(t, web, node, "build.mjs")
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(filepath.Join(web, "dist"))))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	shots := filepath.Join(web, "testdata")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	out := run(t, web, node, "e2e.mjs", srv.URL+"/", shots, chromium)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("e2e.mjs printed %q: %v", out, err)
	}
	t.Logf("measured: %s", bytes.TrimSpace(out))
	for _, f := range []string{"load.png", "toctou.png", "lasso.png", "wide.png", "graph.png"} {
		if fi, err := os.Stat(filepath.Join(shots, f)); err != nil || fi.Size() < 10000 {
			t.Errorf("screenshot %s missing or empty: %v", f, err)
		}
	}
}

// TestUIInChromium runs `wrapcheck ui` on the TOCTOU example and drives
// the page it serves in headless Chromium, opened at the address with the
// token that it prints: the native checker's verdict, trace table and
// explorer, through the cookie that the visit with the token sets.
func TestUIInChromium(t *testing.T) {
	chromium := need(t, "chromium")
	node := need(t, "node")
	npm := need(t, "npm")
	if testenv.Short(t) {
		t.Skip("-short: skipping the browser test")
	}
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "puppeteer-core")); err != nil {
		testenv.Slow(t, "npm ci from the npm registry")
		run(t, web, npm, "ci", "--no-audit", "--no-fund")
	}
	if _, err := os.Stat(filepath.Join(web, "dist", "wrapcheck.wasm")); err != nil {
		run(t, web, node, "build.mjs")
	} else {
		run(t, web, node, "build.mjs", "--no-wasm") // the native page needs no new wasm
	}
	bin := filepath.Join(t.TempDir(), "wrapcheck")
	run(t, filepath.Dir(web), "go", "build", "-o", bin, "./cmd/wrapcheck")
	ui := exec.Command(bin, "ui", "--no-open", "--dir", filepath.Join(web, "dist"), filepath.Join(filepath.Dir(web), "examples", "approval", "toctou.wrap"))
	stdout, err := ui.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ui.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = ui.Process.Kill()
		_ = ui.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("wrapcheck ui printed %q: %v", line, err)
	}
	url := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/\?token=[A-Z2-7]{26}\b`).FindString(line)
	if url == "" {
		t.Fatalf("wrapcheck ui printed %q: no http://127.0.0.1:PORT/?token=TOKEN in it", line)
	}
	shots := filepath.Join(web, "testdata")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	out := run(t, web, node, "e2e.mjs", url, shots, chromium, "native")
	t.Logf("measured: %s", bytes.TrimSpace(out))
}

func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", filepath.Base(name), args, err, out, stderr.Bytes())
	}
	return out
}

// TestBuildRemovesStaleOutputs builds the page twice into a directory
// holding files of an earlier build and files of someone else: the
// build removes the chunks it made before and did not make again (by its
// list of outputs, or by esbuild's chunk names where there is no list),
// and nothing else.
func TestBuildRemovesStaleOutputs(t *testing.T) {
	node := need(t, "node")
	npm := need(t, "npm")
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "esbuild")); err != nil {
		testenv.Slow(t, "npm ci from the npm registry")
		run(t, web, npm, "ci", "--no-audit", "--no-fund")
	}
	base := t.TempDir()
	out := filepath.Join(base, "dist")
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(path string) bool {
		_, err := os.Lstat(path)
		return err == nil
	}
	check := func(gone, kept []string) []string {
		t.Helper()
		run(t, web, node, "build.mjs", "--no-wasm", "--out", out)
		for _, f := range gone {
			if exists(filepath.Join(out, f)) {
				t.Errorf("%s is left in the output", f)
			}
		}
		for _, f := range kept {
			if !exists(filepath.Join(base, f)) {
				t.Errorf("the build removed %s, which it did not make", f)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, ".build-outputs.json"))
		if err != nil {
			t.Fatal(err)
		}
		var list []string
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		for _, f := range append([]string{"app.js", "worker.js", "index.html"}, list...) {
			if !exists(filepath.Join(out, f)) {
				t.Errorf("%s is missing from the output", f)
			}
		}
		return list
	}

	// a dist built before the list was kept: esbuild's chunk names go
	write(filepath.Join(out, "wrapcheck.wasm")) // --no-wasm: no go build
	for _, f := range []string{"chunk-ZZZZZZZZ.js", "mermaid.core-ZZZZZZZZ.js", "notes.txt", "user.js", "user-lower-abcdefgh.js"} {
		write(filepath.Join(out, f))
	}
	list := check([]string{"chunk-ZZZZZZZZ.js", "mermaid.core-ZZZZZZZZ.js"},
		[]string{"dist/notes.txt", "dist/user.js", "dist/user-lower-abcdefgh.js", "dist/wrapcheck.wasm"})
	if len(list) < 3 {
		t.Fatalf("the list of outputs has %d files: %v", len(list), list)
	}

	// with the list: what it names goes, and only that
	for _, f := range []string{"chunk-YYYYYYYY.js", "mine-QQQQQQQQ.js", "escape.txt", "sub/x.js"} {
		write(filepath.Join(out, f))
	}
	write(filepath.Join(base, "escape.txt"))
	b, _ := json.Marshal(append(list, "chunk-YYYYYYYY.js", "../escape.txt", "sub", ".", ".."))
	if err := os.WriteFile(filepath.Join(out, ".build-outputs.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	check([]string{"chunk-YYYYYYYY.js"},
		[]string{"escape.txt", "dist/escape.txt", "dist/mine-QQQQQQQQ.js", "dist/sub/x.js", "dist/notes.txt", "dist/user.js"})
}

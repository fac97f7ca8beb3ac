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
)

// need returns the path of a tool, skipping the test when it is absent
// and failing when CI=true (.ci/run installs it).
func need(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI=true: .ci/run installs it)", name)
		}
		t.Skipf("%s is not installed: skipping the browser test", name)
	}
	return p
}

// TestPlaygroundInChromium builds web/dist (the wasm and the bundle),
// serves it on 127.0.0.1 and runs web/e2e.mjs in headless Chromium: the
// TOCTOU example's trace table, the explorer (actions and agent answers),
// a liveness example's lasso, an error underlined, a long run cancelled,
// the share link. Screenshots go to web/testdata.
func TestPlaygroundInChromium(t *testing.T) {
	chromium := need(t, "chromium")
	node := need(t, "node")
	npm := need(t, "npm")
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "puppeteer-core")); err != nil {
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
	for _, f := range []string{"toctou.png", "lasso.png", "graph.png"} {
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
	if testing.Short() {
		t.Skip("-short: skipping the browser test")
	}
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "puppeteer-core")); err != nil {
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

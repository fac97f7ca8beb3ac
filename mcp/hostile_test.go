package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostile returns a reproducer of the shared corpus (testdata/hostile).
func hostile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// untils is a conjunction of n until formulas: n eventualities, an
// automaton of 2^n states.
func untils(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf("(p%d until q%d)", i, i))
	}
	return strings.Join(parts, " and ")
}

// TestHostileTimeout: every tool call with hostile input (a spec whose
// constants multiply huge integers, one whose action computes with large
// ones for hours, a formula whose automaton is exponential) ends within its timeout_seconds plus a
// second, with an error (the stop, or the front end's own bound on such
// integers) or the verdict incomplete, and the server stops its work: the
// goroutines of the calls end.
func TestHostileTimeout(t *testing.T) {
	cs := connect(t, nil)
	base := runtime.NumGoroutine()
	tests := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"check bigwork", "check", map[string]any{"spec": hostile(t, "bigwork.wrap")}},
		{"explain bigwork", "explain", map[string]any{"spec": hostile(t, "bigwork.wrap")}},
		{"replay bigwork", "replay", map[string]any{"spec": hostile(t, "bigwork.wrap"), "run": `{"action": "go"}` + "\n"}},
		{"check constbomb", "check", map[string]any{"spec": hostile(t, "constbomb.wrap")}},
		{"vet constbomb", "vet", map[string]any{"spec": hostile(t, "constbomb.wrap")}},
		{"explain constbomb", "explain", map[string]any{"spec": hostile(t, "constbomb.wrap")}},
		{"replay constbomb", "replay", map[string]any{"spec": hostile(t, "constbomb.wrap"), "run": `{"action": "go"}` + "\n"}},
		{"ltl 20 untils", "ltl", map[string]any{"formula": untils(20)}},
	}
	const limit = 1.0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["timeout_seconds"] = limit
			// The client gives up after 10s, so that a call that never
			// answers fails the test instead of hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			el := time.Since(start)
			if err != nil {
				t.Fatalf("after %v: %v", el, err)
			}
			if el > time.Duration((limit+1)*float64(time.Second)) {
				t.Errorf("answered after %v, limit %vs", el, limit)
			}
			var out struct{ Verdict string }
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			if !res.IsError && out.Verdict != "incomplete" {
				t.Errorf("got the verdict %q, want an error or the verdict incomplete", out.Verdict)
			}
			want := tt.tool + ": stopped before the end: timeout (timeout_seconds 1)"
			if tt.tool == "ltl" && text(res) != want {
				t.Errorf("got %q, want %q", text(res), want)
			}
			t.Logf("after %v: %.200s", el, text(res))
		})
	}
	// A huge literal squared 40 times passes the bound on exact
	// integers at its third square: a violation, at once.
	var out CheckOutput
	if res := call(t, cs, "check", map[string]any{"spec": hostile(t, "rtbomb.wrap"), "timeout_seconds": limit}, &out); res.IsError || out.Verdict != "violated" ||
		!strings.Contains(text(res), "runtime error in action go: integer result does not fit 16384 bits") {
		t.Errorf("check rtbomb: %.300s", text(res))
	}
	// The work of the calls stopped with them.
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines 3s after the calls ended, %d before them:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
	// The server still answers at once.
	var vet VetOutput
	if res := call(t, cs, "vet", map[string]any{"spec": toggle}, &vet); res.IsError {
		t.Fatal(text(res))
	}
}

// TestDefaultTimeout: a call that names no timeout_seconds ends at the
// server's default.
func TestDefaultTimeout(t *testing.T) {
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(Options{DefaultTimeout: time.Second}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ltl", Arguments: map[string]any{"formula": untils(20)}})
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("answered after %v, default limit 1s", el)
	}
	if want := "ltl: stopped before the end: timeout (the server's default of 1s)"; !res.IsError || text(res) != want {
		t.Errorf("got error %v %q, want %q", res.IsError, text(res), want)
	}
}

// TestPathConfinement: a path is read only when it resolves, symbolic
// links and all, to a regular file under the client's roots or, without
// roots, under the working directory.
func TestPathConfinement(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	write := func(dir, name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inside := write(root, "ok.wrap", toggle)
	outside := write(other, "secret.wrap", toggle)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.wrap"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"in.wrap": inside, "out.wrap": outside, "stdin.wrap": "/dev/stdin", "etc": "/etc"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", strings.Count(cwd, string(filepath.Separator))+2)
	noRoots := &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
	tests := []struct {
		name  string
		roots []string // nil: the client declares no roots
		tool  string
		path  string
		want  string // the tool error; "" for success
	}{
		{"cwd: absolute outside", nil, "vet", "/etc/passwd", "/etc/passwd: outside the working directory, where the server reads files"},
		{"cwd: dot-dot outside", nil, "vet", up + "etc/hostname", up + "etc/hostname: outside the working directory, where the server reads files"},
		{"cwd: the server's stdin", nil, "fmt", "/dev/stdin", "/dev/stdin: outside the working directory, where the server reads files"},
		{"cwd: inside", nil, "vet", "testdata/../server.go", "server.go"}, // parses as a spec: a syntax error, but read
		{"cwd: a temporary root is not the working directory", nil, "vet", inside, inside + ": outside the working directory, where the server reads files"},
		{"roots: inside", []string{root}, "vet", inside, ""},
		{"roots: link inside", []string{root}, "check", filepath.Join(root, "in.wrap"), ""},
		{"roots: link out", []string{root}, "vet", filepath.Join(root, "out.wrap"), filepath.Join(root, "out.wrap") + ": outside the client's roots, where the server reads files"},
		{"roots: link to stdin", []string{root}, "fmt", filepath.Join(root, "stdin.wrap"), ""},
		{"roots: link to a directory out", []string{root}, "vet", filepath.Join(root, "etc", "passwd"), filepath.Join(root, "etc", "passwd") + ": outside the client's roots, where the server reads files"},
		{"roots: dot-dot out", []string{root}, "vet", filepath.Join(root, "..", filepath.Base(other), "secret.wrap"), filepath.Join(root, "..", filepath.Base(other), "secret.wrap") + ": outside the client's roots, where the server reads files"},
		{"roots: a FIFO", []string{root}, "fmt", filepath.Join(root, "fifo.wrap"), filepath.Join(root, "fifo.wrap") + ": not a regular file"},
		{"roots: a directory", []string{root}, "fmt", root, root + ": not a regular file"},
		{"roots: two", []string{other, root}, "vet", outside, ""},
		{"roots: the working directory is not a root", []string{root}, "vet", "server.go", "server.go: outside the client's roots, where the server reads files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cs *sdk.ClientSession
			if tt.roots == nil {
				cs = connectRoots(t, noRoots)
			} else {
				cs = connectRoots(t, nil, tt.roots...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: map[string]any{"path": tt.path, "timeout_seconds": 2}})
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("answered after %v, at the limit of the call: it waited on the file", el)
			}
			switch {
			case tt.name == "cwd: inside":
				if !res.IsError || !strings.HasPrefix(text(res), "testdata/../server.go:") {
					t.Errorf("got error %v %q, want a syntax error of the file read", res.IsError, text(res))
				}
			case tt.name == "roots: link to stdin":
				// /dev/stdin resolves outside the root (to /proc or a device).
				if !res.IsError || !strings.HasPrefix(text(res), tt.path+": ") {
					t.Errorf("got error %v %q, want a refusal", res.IsError, text(res))
				}
			case tt.want == "":
				if res.IsError {
					t.Errorf("tool error: %s", text(res))
				}
			case !res.IsError || text(res) != tt.want:
				t.Errorf("got error %v %q, want %q", res.IsError, text(res), tt.want)
			}
		})
	}
}

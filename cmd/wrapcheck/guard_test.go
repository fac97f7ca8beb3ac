package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/guard"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// startGuard starts the built binary's `guard --listen listen` on spec
// and returns the address it prints and the token it writes.
func startGuard(t *testing.T, bin, listen, spec string) (addr, token, tokenFile string) {
	t.Helper()
	tokenFile = filepath.Join(t.TempDir(), "token")
	cmd := exec.Command(bin, "guard", "--listen", listen, "--token-file", tokenFile, spec)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("guard: %v", err)
	}
	m := regexp.MustCompile(`^wrapcheck guard: listening on (\S+) \(token in `).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("guard's first line: %q", line)
	}
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(tokenFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	return m[1], strings.TrimSpace(string(b)), tokenFile
}

// TestGuardHTTP checks what the guard's HTTP server refuses: another
// Host (DNS rebinding), another Origin, no token, a body that is not JSON
// or too long; and that it decides what it admits.
func TestGuardHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, _ := buildBinary(t)
	addr, token, _ := startGuard(t, bin, "127.0.0.1:0", "../../examples/approval/toctou_fixed_revoke.wrap")
	post := func(body string, hdr map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", addr+"/v1/decide", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Wrapcheck-Token", token)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	type answer struct {
		Code int
		Body string
	}
	open := `{"op": "open", "run": "r"}`
	got := []answer{}
	for _, tt := range []struct {
		body string
		hdr  map[string]string
	}{
		{open, map[string]string{"Host": "evil.example:80"}},
		{open, map[string]string{"Origin": "http://evil.example"}},
		{open, map[string]string{"X-Wrapcheck-Token": ""}},
		{open, map[string]string{"X-Wrapcheck-Token": "wrong"}},
		{open, map[string]string{"Content-Type": "text/plain"}},
		{`{"run": "` + strings.Repeat("x", 2<<20) + `"}`, nil},
		{open, nil},
		{`{"run": "r", "event": {"action": "releaser.release"}}`, map[string]string{"X-Wrapcheck-Token": "", "Authorization": "Bearer " + token}},
	} {
		code, body := post(tt.body, tt.hdr)
		got = append(got, answer{code, strings.ReplaceAll(body, strings.TrimPrefix(addr, "http://127.0.0.1:"), "PORT")})
	}
	want := []answer{
		{403, `{"run":"","decision":"block","reason":"wrapcheck guard: unexpected Host \"evil.example:80\": the server answers only to 127.0.0.1:PORT and localhost:PORT","kind":"refused","step":0}` + "\n"},
		{403, `{"run":"","decision":"block","reason":"wrapcheck guard: request from another origin","kind":"refused","step":0}` + "\n"},
		{401, `{"run":"","decision":"block","reason":"wrapcheck guard: no valid token: send the token wrapcheck guard made at launch in the X-Wrapcheck-Token header","kind":"refused","step":0}` + "\n"},
		{401, `{"run":"","decision":"block","reason":"wrapcheck guard: no valid token: send the token wrapcheck guard made at launch in the X-Wrapcheck-Token header","kind":"refused","step":0}` + "\n"},
		{415, `{"run":"","decision":"block","reason":"wrapcheck guard: a POST must be application/json","kind":"refused","step":0}` + "\n"},
		{413, `{"run":"","decision":"block","reason":"wrapcheck guard: request longer than 1052672 bytes","kind":"refused","step":0}` + "\n"},
		{200, `{"run":"r","decision":"allow","step":0,"allowed":["approver.approve","editor.edit"]}` + "\n"},
		{200, `{"run":"r","decision":"block","reason":"the spec does not allow releaser.release here","kind":"diverges","step":0,"allowed":["approver.approve","editor.edit"],"trace":[{"step":0,"action":null,"state":{"content":0,"approved":0,"granted":false,"released":false,"shipped":0}}]}` + "\n"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	resp, err := http.Get(addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Errorf("/healthz: %d %q", resp.StatusCode, b)
	}
	for _, tok := range []string{"", token} {
		req, _ := http.NewRequest("GET", addr+"/metrics", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, wantBody := 401, "no valid token"
		if tok != "" {
			want, wantBody = 200, `wrapcheck_guard_blocks_total{kind="diverges",property=""} 1`
		}
		if resp.StatusCode != want || !strings.Contains(string(b), wantBody) {
			t.Errorf("/metrics with token %q: %d\n%s", tok, resp.StatusCode, b)
		}
	}
}

// exampleOutput is what both example agent loops print.
const exampleOutput = `ran approver.approve
ran editor.edit
blocked releaser.release: the spec does not allow releaser.release here (allowed: approver.approve, editor.edit)
ran approver.approve
ran releaser.release (run terminal)
shipped version 1, approved 1
`

// TestGuardClients runs the example agent loops of examples/guard, in
// Python (standard library) and JavaScript (node, no dependencies),
// against the built binary: over HTTP on a loopback port, on a Unix
// socket, and over standard input and output. Without python3 or node
// the test skips them, and fails instead when CI=true.
func TestGuardClients(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, _ := buildBinary(t)
	const spec = "../../examples/approval/toctou_fixed_revoke.wrap"
	for _, tt := range []struct {
		name, tool, script string
	}{
		{"python", "python3", "../../examples/guard/agent_loop.py"},
		{"node", "node", "../../examples/guard/agent_loop.mjs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			testenv.Tool(t, tt.tool, "install "+tt.tool+" to run the guard's client")
			for _, transport := range []string{"tcp", "unix", "stdio"} {
				var args []string
				switch transport {
				case "tcp":
					addr, _, tok := startGuard(t, bin, "127.0.0.1:0", spec)
					args = []string{"--url", addr, "--token-file", tok}
				case "unix":
					sock := filepath.Join(t.TempDir(), "g.sock")
					_, _, tok := startGuard(t, bin, "unix:"+sock, spec)
					args = []string{"--unix", sock, "--token-file", tok}
				case "stdio":
					args = []string{"--stdio", bin, spec}
				}
				cmd := exec.Command(tt.tool, append([]string{tt.script}, args...)...)
				cmd.WaitDelay = 10 * time.Second
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s over %s: %v\n%s", tt.name, transport, err, out)
				}
				if diff := cmp.Diff(exampleOutput, string(out)); diff != "" {
					t.Errorf("%s over %s (-want +got):\n%s", tt.name, transport, diff)
				}
			}
		})
	}
}

// TestGuardGCPercent checks the collector's pace guard serves at:
// guard.ServeGCPercent, unless the environment's GOGC is set.
func TestGuardGCPercent(t *testing.T) {
	for env, want := range map[string]int{"": guard.ServeGCPercent, "100": 0, "off": 0} {
		if got := serveGCPercent(env); got != want {
			t.Errorf("serveGCPercent(%q) = %d, want %d", env, got, want)
		}
	}
}

// TestGuardProcs checks the threads guard serves HTTP with: one unless
// --procs or the environment's GOMAXPROCS says otherwise, and --procs
// out of its bounds refused before anything is read.
func TestGuardProcs(t *testing.T) {
	for _, tt := range []struct {
		procs int
		env   string
		want  int
	}{{0, "", 1}, {0, "4", 0}, {2, "", 2}, {3, "4", 3}} {
		if got := serveProcs(tt.procs, tt.env); got != tt.want {
			t.Errorf("serveProcs(%d, %q) = %d, want %d", tt.procs, tt.env, got, tt.want)
		}
	}
	for _, p := range []string{"-1", "257"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"guard", "--procs", p, "--listen", "127.0.0.1:0", "../../examples/pipeline/pipeline.wrap"}, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), "--procs must be between 0 and 256") {
			t.Errorf("--procs %s: exit %d\n%s", p, code, stderr.String())
		}
	}
}

// TestGuardHTTPBodies sends the built binary's guard, raw, the request
// bodies its handler reads in two ways (of declared length into a reused
// buffer, chunked through the limit): too long either way, refused (a
// declared length before any byte of the body is read), and cut short,
// refused; then a good one on a fresh connection is still decided.
func TestGuardHTTPBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, _ := buildBinary(t)
	addr, token, _ := startGuard(t, bin, "127.0.0.1:0", "../../examples/approval/toctou_fixed_revoke.wrap")
	host := strings.TrimPrefix(addr, "http://")
	head := "POST /v1/decide HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nX-Wrapcheck-Token: " + token + "\r\n"
	long := `{"run": "` + strings.Repeat("x", 2<<20) + `"}`
	open := `{"op": "open", "run": "r"}`
	for _, tt := range []struct {
		name, send string
		closeWrite bool
		want       string
	}{
		{"declared too long", head + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(long)), false, "413 request longer than 1052672 bytes"},
		{"chunked too long", head + "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(long), long), false, "413 request longer than 1052672 bytes"},
		{"cut short", head + "Content-Length: 100\r\n\r\n" + open, true, "400 reading the request: unexpected EOF"},
		{"good", head + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(open)) + open, false, "200 allow"},
	} {
		conn, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		go func() {
			conn.Write([]byte(tt.send))
			if tt.closeWrite {
				conn.(*net.TCPConn).CloseWrite()
			}
		}()
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var d struct{ Decision, Reason string }
		json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		conn.Close()
		got := fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimPrefix(d.Reason, "wrapcheck guard: "))
		if d.Decision == "allow" {
			got = fmt.Sprintf("%d allow", resp.StatusCode)
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

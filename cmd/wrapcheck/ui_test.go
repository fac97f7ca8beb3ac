package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
	"github.com/wrapcheck/wrapcheck/web/engine"
)

// TestUIServer asks the ui server's API what the page asks and compares
// its check of the TOCTOU example with the native report.
func TestUIServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>page"), 0o644); err != nil {
		t.Fatal(err)
	}
	const path = "../../examples/approval/toctou.wrap"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	srv, ui := startUI(t, dir, path, nil)

	tests := []struct {
		name, method, url, body string
		wantStatus              int
		wantIn                  string
	}{
		{"page", "GET", "/", "", 200, "page"},
		{"config points at the native checker", "GET", "/config.js", "", 200, "native: true"},
		{"spec", "GET", "/api/spec", "", 200, `"source":"// The approval TOCTOU`},
		{"examples", "GET", "/api/examples", "", 200, `"path":"approval/toctou.wrap"`},
		{"bad request", "POST", "/api/run", "{", 400, "bad request"},
		{"error with a position", "POST", "/api/run", `{"op":"check","source":"spec X\nvar x: 0..3 = 0\nprocess p { action a { x = 1 } }\n"}`, 200, `"line":3,"col":26`},
		{"fmt", "POST", "/api/run", `{"op":"fmt","source":"spec   X\n"}`, 200, `"formatted":"spec X\n"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, b := ask(t, srv, tc.method, tc.url, "", tc.body, map[string]string{"Content-Type": "application/json", "X-Wrapcheck-Token": ui.token})
			if status != tc.wantStatus || !bytes.Contains(b, []byte(tc.wantIn)) {
				t.Errorf("%s %s: status %d, body %.300s; want %d with %q", tc.method, tc.url, status, b, tc.wantStatus, tc.wantIn)
			}
		})
	}

	body, _ := json.Marshal(engine.Request{Op: "check", Name: "toctou.wrap", Source: string(src)})
	resp, err := http.Post(srv.URL+"/api/run?token="+ui.token, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got engine.Response
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("toctou.wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Run(context.Background(), m, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.JSON(&want, m, res); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stable(t, want.Bytes()), stable(t, got.Report)); diff != "" {
		t.Errorf("ui check of toctou.wrap (-native +ui):\n%s", diff)
	}
	if len(got.TraceSlots) != 4 || got.Mermaid == "" {
		t.Errorf("ui check: %d trace states (want 4), mermaid %q", len(got.TraceSlots), got.Mermaid)
	}
}

// stable decodes a JSON report without what differs between runs.
func stable(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	st, _ := doc["stats"].(map[string]any)
	delete(st, "seconds")
	delete(st, "workers")
	delete(doc, "warnings")
	return doc
}

// startUI serves the page in dir and the spec at path with the ui
// command's server, on a free port of 127.0.0.1, until the test ends;
// setup, when not nil, is given the server before it starts.
func startUI(t *testing.T, dir, path string, setup func(*uiServer)) (*httptest.Server, *uiServer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ui := newUIServer(dir, path, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	if setup != nil {
		setup(ui)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: ui}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, ui
}

// ask sends the server a request (with Host host unless it is "") and
// returns the status and body of its answer.
func ask(t *testing.T, srv *httptest.Server, method, url, host, body string, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestUIGuard sends the server what a page of another site, or one
// reached by DNS rebinding, could send, and what the page itself sends.
func TestUIGuard(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>page"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, ui := startUI(t, dir, "../../examples/approval/toctou.wrap", nil)
	own := "127.0.0.1:" + ui.port
	cookie := ui.cookie() + "=" + ui.token
	const fmtBody = `{"op":"fmt","source":"spec   X\n"}`
	asJSON := map[string]string{"Content-Type": "application/json"}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name, method, url, host, body string
		header                        map[string]string
		wantStatus                    int
		wantIn                        string
	}{
		{"token in the query", "GET", "/?token=" + ui.token, "", "", nil, 200, "page"},
		{"token in the header", "GET", "/api/spec", "", "", map[string]string{"X-Wrapcheck-Token": ui.token}, 200, "ApprovalTOCTOU"},
		{"token in the cookie", "POST", "/api/run", "", fmtBody, with(asJSON, "Cookie", cookie), 200, `"formatted":"spec X\n"`},
		{"the page's own POST", "POST", "/api/run", "", fmtBody, with(asJSON, "Cookie", cookie, "Origin", "http://"+own, "Sec-Fetch-Site", "same-origin"), 200, `"formatted"`},
		{"localhost", "GET", "/api/spec", "localhost:" + ui.port, "", with(nil, "Cookie", cookie), 200, "ApprovalTOCTOU"},
		{"no token", "GET", "/", "", "", nil, 403, "no valid token"},
		{"no token for the API", "POST", "/api/run", "", fmtBody, asJSON, 403, "no valid token"},
		{"no token for the spec", "GET", "/api/spec", "", "", nil, 403, "no valid token"},
		{"wrong token", "GET", "/api/spec?token=" + strings.ToLower(ui.token), "", "", nil, 403, "no valid token"},
		{"wrong token in the header", "GET", "/api/spec", "", "", map[string]string{"X-Wrapcheck-Token": ui.token[1:]}, 403, "no valid token"},
		{"wrong cookie", "GET", "/api/spec", "", "", with(nil, "Cookie", ui.cookie()+"=x"+ui.token), 403, "no valid token"},
		{"another port's cookie", "GET", "/api/spec", "", "", with(nil, "Cookie", "wrapcheck-ui-1="+ui.token), 403, "no valid token"},
		{"DNS rebinding", "GET", "/api/spec", "evil.example:" + ui.port, "", with(nil, "Cookie", cookie), 403, "unexpected Host"},
		{"DNS rebinding with the token", "GET", "/?token=" + ui.token, "evil.example:" + ui.port, "", nil, 403, "unexpected Host"},
		{"another port", "GET", "/api/spec", "127.0.0.1:1", "", with(nil, "Cookie", cookie), 403, "unexpected Host"},
		{"foreign Origin", "POST", "/api/run", "", fmtBody, with(asJSON, "Cookie", cookie, "Origin", "http://evil.example"), 403, "another origin"},
		{"foreign Origin with the token", "POST", "/api/run?token=" + ui.token, "", fmtBody, with(asJSON, "Origin", "https://evil.example"), 403, "another origin"},
		{"null Origin", "POST", "/api/run", "", fmtBody, with(asJSON, "Cookie", cookie, "Origin", "null"), 403, "another origin"},
		{"another port's Origin", "POST", "/api/run", "", fmtBody, with(asJSON, "Cookie", cookie, "Origin", "http://127.0.0.1:1"), 403, "another origin"},
		{"cross-site with the cookie", "GET", "/api/spec", "", "", with(nil, "Cookie", cookie, "Sec-Fetch-Site", "cross-site"), 403, "another site"},
		{"text/plain POST", "POST", "/api/run", "", fmtBody, with(nil, "Cookie", cookie, "Content-Type", "text/plain"), 415, "application/json"},
		{"form POST", "POST", "/api/run", "", "op=fmt", with(nil, "Cookie", cookie, "Content-Type", "application/x-www-form-urlencoded"), 415, "application/json"},
		{"POST with no type", "POST", "/api/run", "", fmtBody, with(nil, "Cookie", cookie), 415, "application/json"},
		{"no directory", "GET", "/sub/", "", "", with(nil, "Cookie", cookie), 404, ""},
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, b := ask(t, srv, tc.method, tc.url, tc.host, tc.body, tc.header)
			if status != tc.wantStatus || !bytes.Contains(b, []byte(tc.wantIn)) {
				t.Errorf("%s %s (Host %q, %v): status %d, body %.300q; want %d with %q", tc.method, tc.url, tc.host, tc.header, status, b, tc.wantStatus, tc.wantIn)
			}
		})
	}

	// the visit with the token sets the cookie the page's requests carry
	resp, err := http.Get(srv.URL + "/?token=" + ui.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var set *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == ui.cookie() {
			set = c
		}
	}
	if set == nil || set.Value != ui.token || !set.HttpOnly || set.SameSite != http.SameSiteStrictMode || set.Path != "/" {
		t.Errorf("the visit with the token set %v, want %s=TOKEN; Path=/; HttpOnly; SameSite=Strict", resp.Header["Set-Cookie"], ui.cookie())
	}
}

// TestUIServesNoSymlinkOut asks the server for files of --dir that are
// symbolic links out of it, and for paths that climb out of it.
func TestUIServesNoSymlinkOut(t *testing.T) {
	base := t.TempDir()
	dir, out := filepath.Join(base, "dist"), filepath.Join(base, "out")
	for _, d := range []string{dir, out, filepath.Join(out, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		filepath.Join(dir, "index.html"):         "<!doctype html>page",
		filepath.Join(out, "secret.txt"):         "SECRET",
		filepath.Join(out, "deep", "secret.txt"): "SECRET",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"leak.txt": filepath.Join(out, "secret.txt"), // absolute
		"rel.txt":  "../out/secret.txt",              // relative
		"sub":      out,                              // a directory
		"same.txt": "index.html",                     // inside: allowed
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	srv, ui := startUI(t, dir, "../../examples/approval/toctou.wrap", nil)
	for _, tc := range []struct {
		path       string
		wantStatus int
	}{
		{"/leak.txt", 404},
		{"/rel.txt", 404},
		{"/sub/secret.txt", 404},
		{"/sub/deep/secret.txt", 404},
		{"/sub/", 404},
		{"/../out/secret.txt", 404},
		{"/%2e%2e/out/secret.txt", 404},
		{"/same.txt", 200},
		{"/", 200},
	} {
		status, b := ask(t, srv, "GET", tc.path, "", "", map[string]string{"X-Wrapcheck-Token": ui.token})
		if status != tc.wantStatus || bytes.Contains(b, []byte("SECRET")) {
			t.Errorf("GET %s: status %d, body %.100q; want %d and no secret", tc.path, status, b, tc.wantStatus)
		}
	}
}

// TestUICancelsAbandonedRun starts a check that would run for a minute,
// closes the connection once the search reports progress, and waits for
// the server's run to end: it must end soon, stopped by the cancelled
// request (reason "interrupted"), not by its time limit.
func TestUICancelsAbandonedRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>page"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var once sync.Once
	ran := make(chan *engine.Response, 1)
	srv, ui := startUI(t, dir, "../../examples/approval/toctou.wrap", func(ui *uiServer) {
		ui.progress = func(engine.Progress) { once.Do(func() { close(started) }) }
		ui.ran = func(r *engine.Response) { ran <- r }
	})

	// every state evaluates a quantifier over ten million values: a
	// search of a million states that ends only at its time limit
	const slow = "spec Slow\nvar x: 0..1000000 = 0\nprocess p {\n  action a when x < 1000000 { x := x + 1 }\n}\ninvariant Heavy: forall i in 0..10000000: x + i >= 0\n"
	const limit = 60 * time.Second
	body, _ := json.Marshal(engine.Request{Op: "check", Source: slow, MaxStates: 1 << 40, TimeoutMS: limit.Milliseconds()})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// a body of unknown length goes chunked: the handler must read it to
	// its end for the server to watch the connection
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/api/run", io.MultiReader(bytes.NewReader(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Wrapcheck-Token", ui.token)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("the request ended before the search reported progress: %v", err)
	case <-time.After(limit / 2):
		t.Fatal("the search reported no progress")
	}
	t0 := time.Now()
	cancel() // the client goes away
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled request returned %v", err)
	}
	select {
	case resp := <-ran:
		var rep struct {
			Verdict, Reason string
		}
		if err := json.Unmarshal(resp.Report, &rep); err != nil {
			t.Fatalf("%v in %s (errors %v)", err, resp.Report, resp.Errors)
		}
		if rep.Verdict != "incomplete" || rep.Reason != "interrupted" {
			t.Errorf("the abandoned run ended %s (%s), want incomplete (interrupted)", rep.Verdict, rep.Reason)
		}
		t.Logf("the run ended %v after the client went", time.Since(t0).Round(time.Millisecond))
	case <-time.After(limit / 4):
		t.Fatalf("the run went on %v after its client went", limit/4)
	}
}

// TestUIBuiltInPage: without --dir the server answers with the page built
// into the program (package page): no clone, no Node.js build.
func TestUIBuiltInPage(t *testing.T) {
	srv, ui := startUI(t, "", "../../examples/approval/toctou.wrap", nil)
	tok := map[string]string{"X-Wrapcheck-Token": ui.token}
	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{"/", "<!doctype html>", 200},
		{"/app.js", "", 200},
		{"/lessons.json", `"title"`, 200},
		{"/wrapcheck.wasm", "", 404},
		{"/../page.go", "", 404},
	} {
		status, b := ask(t, srv, "GET", tc.path, "", "", tok)
		if status != tc.status || !bytes.Contains(bytes.ToLower(b), []byte(strings.ToLower(tc.want))) || (status == 200 && len(b) == 0) {
			t.Errorf("GET %s: status %d, body %.80q; want %d with %q", tc.path, status, b, tc.status, tc.want)
		}
	}
}

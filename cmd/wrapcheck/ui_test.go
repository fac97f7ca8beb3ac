package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	srv := httptest.NewServer(uiHandler(dir, path))
	defer srv.Close()

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
			req, _ := http.NewRequest(tc.method, srv.URL+tc.url, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || !bytes.Contains(b, []byte(tc.wantIn)) {
				t.Errorf("%s %s: status %d, body %.300s; want %d with %q", tc.method, tc.url, resp.StatusCode, b, tc.wantStatus, tc.wantIn)
			}
		})
	}

	body, _ := json.Marshal(engine.Request{Op: "check", Name: "toctou.wrap", Source: string(src)})
	resp, err := http.Post(srv.URL+"/api/run", "application/json", bytes.NewReader(body))
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

package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/verdict"
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

func docParams(uri string) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}}
}

func (c *client) openAsync(uri string, version int, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "wrap", "version": version, "text": text}})
}

// await waits for a response until deadline.
func await(t *testing.T, what string, ch chan *message, deadline time.Time) *message {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(time.Until(deadline)):
		t.Fatalf("%s: no response by the deadline", what)
		return nil
	}
}

// TestHostileDocument: while a document whose analysis does not end on
// its own is open (constants squared in a chain, fn bodies expanded
// beyond memory, an action that squares a huge integer), with the
// requests an editor sends when it opens a document pending on it,
// hover, completion and workspace symbols on another document answer at
// once; the hostile document gets its diagnostics, and its requests their
// answers, by the end of its time budget plus a second.
func TestHostileDocument(t *testing.T) {
	const budget = 2 * time.Second
	for _, name := range []string{"constbomb.wrap", "fnbomb.wrap", "rtbomb.wrap"} {
		t.Run(name, func(t *testing.T) {
			c := startServer(t, Options{AnalysisTimeout: budget})
			c.initialize()
			c.open(testURI, approvalSpec)
			uri := "file:///tmp/" + name
			start := time.Now()
			c.openAsync(uri, 1, hostile(t, name))
			// What an editor asks about a document it opens, sent from a
			// goroutine of its own: a server that reads no more until it
			// answers blocks the sender.
			sent := make(chan map[string]chan *message, 1)
			go func() {
				pending := map[string]chan *message{}
				for _, method := range []string{"textDocument/documentSymbol", "textDocument/semanticTokens/full", "textDocument/codeLens", "textDocument/foldingRange"} {
					pending[method] = c.send(method, docParams(uri))
				}
				pending["textDocument/hover"] = c.send("textDocument/hover", docPos(uri, position{Line: 0, Character: 6}))
				sent <- pending
			}()
			time.Sleep(100 * time.Millisecond) // they come first
			others := []struct {
				method string
				params any
			}{
				{"textDocument/hover", docPos(testURI, at(approvalSpec, "MAXV", 1))},
				{"textDocument/completion", docPos(testURI, at(approvalSpec, "content", 1))},
				{"textDocument/documentSymbol", docParams(testURI)},
				{"workspace/symbol", map[string]any{"query": "MAXV"}},
			}
			for _, o := range others {
				t0 := time.Now()
				ch := c.send(o.method, o.params) // blocks while the server reads nothing
				// Well before the budget, which a request held up by the
				// hostile document would wait for.
				const prompt = budget * 3 / 4
				m := await(t, o.method+" on another document", ch, t0.Add(prompt))
				if el := time.Since(t0); el > prompt {
					t.Errorf("%s on another document answered after %v", o.method, el)
				}
				if m.Error != nil || string(m.Result) == "null" {
					t.Errorf("%s on another document: %v %s", o.method, m.Error, m.Result)
				}
			}
			deadline := start.Add(budget + time.Second)
			d := c.diagnosticsBy(uri, 1, deadline)
			if name != "rtbomb.wrap" && len(d) == 0 {
				t.Errorf("diagnostics of %s: none, want why its analysis stopped", name)
			}
			t.Logf("diagnostics after %v: %+v", time.Since(start), d)
			var pending map[string]chan *message
			select {
			case pending = <-sent:
			case <-time.After(time.Until(deadline)):
				t.Fatalf("the requests on %s could not be sent by the deadline", name)
			}
			for method, ch := range pending {
				if m := await(t, method+" on "+name, ch, deadline); m.Error != nil {
					t.Errorf("%s on %s: %v", method, name, m.Error)
				}
			}
		})
	}
}

// TestHostileEditSupersedes: a newer version of a document whose analysis
// is under way ends that analysis: the new version's diagnostics come at
// once, none come for the old one, and a request about the old version
// is answered ContentModified.
func TestHostileEditSupersedes(t *testing.T) {
	c := startServer(t, Options{AnalysisTimeout: time.Minute})
	c.initialize()
	// constbomb's analysis ends at once now (the bound on exact
	// integers): one that folds constants for a second stands in.
	uri := "file:///tmp/slowconst.wrap"
	c.openAsync(uri, 1, slowConstants())
	old := c.send("textDocument/documentSymbol", docParams(uri))
	time.Sleep(200 * time.Millisecond) // the analysis of version 1 is under way
	start := time.Now()
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": "spec S\nvar x: bool\naction a { x := not y }\n"}}})
	p, ok := c.publication(uri, start.Add(time.Second))
	switch {
	case !ok:
		t.Fatalf("no diagnostics within a second of the edit")
	case p.Version == nil || *p.Version != 2:
		t.Fatalf("diagnostics of a superseded version: %+v", p)
	case len(p.Diagnostics) != 1 || p.Diagnostics[0].Message != "undefined: y":
		t.Errorf("diagnostics of version 2: %+v", p.Diagnostics)
	}
	m := await(t, "documentSymbol on version 1", old, start.Add(time.Second))
	if m.Error == nil || m.Error.Code != codeContentModified {
		t.Errorf("the request about version 1: %+v %s, want ContentModified", m.Error, m.Result)
	}
}

// TestAnalysisMemory: an analysis that grows the heap past the memory
// budget of a document ends with a diagnostic that says so, requests
// about the document are answered then, and the analysis is told to
// stop: the memory it took is let go.
func TestAnalysisMemory(t *testing.T) {
	const budget = 64 << 20
	srv := NewServer(Options{Debounce: time.Millisecond, AnalysisTimeout: time.Minute, AnalysisMemory: budget})
	stopped := make(chan struct{})
	srv.analyze = func(ctx context.Context, d *document, parsed func(*analysis)) *analysis {
		defer close(stopped)
		var hog [][]byte
		for ctx.Err() == nil && len(hog) < 1<<10 { // 1 GiB at most, should the budget fail
			hog = append(hog, make([]byte, 1<<20))
			time.Sleep(time.Millisecond)
		}
		return analyze(ctx, d, parsed)
	}
	c := startWith(t, srv)
	c.initialize()
	runtime.GC()
	base := verdict.HeapBytes()
	start := time.Now()
	c.openAsync(testURI, 1, approvalSpec)
	sym := c.send("textDocument/documentSymbol", docParams(testURI))
	if d := c.diagnosticsBy(testURI, 1, start.Add(10*time.Second)); len(d) != 1 || d[0].Message != "analysis stopped: it grew the memory by more than 64 MiB, the budget for a document; run wrapcheck check --timeout on it" {
		t.Errorf("diagnostics: %+v, want the memory budget", d)
	}
	if m := await(t, "documentSymbol", sym, time.Now().Add(time.Second)); m.Error != nil {
		t.Errorf("documentSymbol: %v", m.Error)
	}
	select {
	case <-stopped:
	case <-time.After(time.Second):
		t.Fatal("the analysis was not told to stop")
	}
	runtime.GC()
	if h := verdict.HeapBytes(); h > base+100<<20 {
		t.Errorf("heap %d MiB after the analysis stopped, %d MiB before it", h>>20, base>>20)
	}
}

// slowConstants returns a spec of 400 KB whose constants take about a
// second to fold (80,000 products and quotients of 13288-bit integers,
// within the bound on exact integers): an analysis that is under way for
// a while, not one that a bound ends at once.
func slowConstants() string {
	var b strings.Builder
	b.WriteString("spec SlowConst\nconst C0 = " + strings.Repeat("9", 1000) + "\nconst C1 = C0 * C0\n")
	for i := 2; i < 42; i++ {
		fmt.Fprintf(&b, "const C%d = C%d%s\n", i, i-1, strings.Repeat(" * C1 / C1", 1000))
	}
	b.WriteString("var x: bool\naction a { x := not x }\n")
	return b.String()
}

// lastID is the id of the latest request sent.
func (c *client) lastID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nextID
}

// TestCancelRequest: $/cancelRequest answers a request that waits for
// the analysis of a document RequestCancelled at once, and stops the
// check that a code lens started (workspace/executeCommand, whose reply
// comes at once) for a client without $/progress, which has no other
// way to stop it. Before, the request was ignored and the check ran for
// its 5 minutes.
func TestCancelRequest(t *testing.T) {
	c := startServer(t, Options{AnalysisTimeout: time.Minute})
	c.initialize()
	uri := "file:///tmp/slowconst.wrap"
	c.openAsync(uri, 1, slowConstants())
	ch := c.send("textDocument/documentSymbol", docParams(uri))
	id := c.lastID()
	time.Sleep(100 * time.Millisecond) // the analysis is under way
	start := time.Now()
	c.notify("$/cancelRequest", map[string]any{"id": id})
	if m := await(t, "documentSymbol, cancelled", ch, start.Add(time.Second)); m.Error == nil || m.Error.Code != codeRequestCancelled {
		t.Errorf("the cancelled request: %+v %s, want RequestCancelled", m.Error, m.Result)
	}

	work := "file:///tmp/bigwork.wrap"
	c.open(work, hostile(t, "bigwork.wrap"))
	m := c.call("workspace/executeCommand", map[string]any{"command": commandCheck, "arguments": []any{work, "Small"}})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	id = c.lastID()
	time.Sleep(300 * time.Millisecond) // the check is under way
	start = time.Now()
	c.notify("$/cancelRequest", map[string]any{"id": id})
	msg := c.waitNote("window/showMessage", nil)
	if !strings.Contains(string(msg), "Small: the search stopped early (interrupted)") {
		t.Errorf("the cancelled check: %s", msg)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("the check stopped %v after $/cancelRequest", el)
	}
}

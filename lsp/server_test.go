package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// client drives a Server over an in-memory JSON-RPC stream, as an
// editor would over stdio.
type client struct {
	t    *testing.T
	in   *io.PipeWriter // to the server
	out  *reader        // from the server
	done chan error

	mu        sync.Mutex
	nextID    int
	responses map[string]chan *message
	notes     chan *message
}

func startServer(t *testing.T, opts Options) *client {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = time.Millisecond
	}
	return startWith(t, NewServer(opts))
}

// startWith drives srv.
func startWith(t *testing.T, srv *Server) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, out: newReader(outR), done: make(chan error, 1),
		responses: map[string]chan *message{}, notes: make(chan *message, 1000)}
	go func() {
		c.done <- srv.Run(context.Background(), inR, outW)
		outW.Close()
	}()
	go c.readLoop()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return c
}

func (c *client) readLoop() {
	for {
		body, err := c.out.read()
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent invalid JSON: %v: %s", err, body)
			return
		}
		if m.Method != "" {
			c.notes <- &m
			continue
		}
		c.mu.Lock()
		ch := c.responses[string(m.ID)]
		c.mu.Unlock()
		if ch != nil {
			ch <- &m
		}
	}
}

func (c *client) sendRaw(body string) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	c.sendRaw(string(b))
}

// send sends a request and returns the channel its response arrives on.
// It may be called from several goroutines.
func (c *client) send(method string, params any) chan *message {
	c.t.Helper()
	ch := make(chan *message, 1)
	c.mu.Lock()
	c.nextID++
	n := c.nextID
	c.responses[fmt.Sprint(n)] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": params})
	c.sendRaw(string(b))
	return ch
}

// call sends a request and waits for its response.
func (c *client) call(method string, params any) *message {
	c.t.Helper()
	ch := c.send(method, params)
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s: no response", method)
	}
	return nil
}

// result calls method and decodes its result into v.
func (c *client) result(method string, params, v any) {
	c.t.Helper()
	m := c.call(method, params)
	if m.Error != nil {
		c.t.Fatalf("%s: %v", method, m.Error)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		c.t.Fatalf("%s: decoding %s: %v", method, m.Result, err)
	}
}

func (c *client) initialize() {
	c.t.Helper()
	var res map[string]any
	c.result("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, &res)
	c.notify("initialized", map[string]any{})
}

// publication waits until deadline for the next diagnostics published
// for uri; ok is false when none came by then.
func (c *client) publication(uri string, deadline time.Time) (p publishDiagnosticsParams, ok bool) {
	c.t.Helper()
	timeout := time.After(time.Until(deadline))
	for {
		select {
		case m := <-c.notes:
			if m.Method != "textDocument/publishDiagnostics" {
				continue
			}
			p = publishDiagnosticsParams{}
			if err := json.Unmarshal(m.Params, &p); err != nil {
				c.t.Fatal(err)
			}
			if p.URI == uri {
				return p, true
			}
		case <-timeout:
			return p, false
		}
	}
}

// diagnostics waits for the diagnostics of uri at version.
func (c *client) diagnostics(uri string, version int) []diagnostic {
	c.t.Helper()
	return c.diagnosticsBy(uri, version, time.Now().Add(30*time.Second))
}

// diagnosticsBy waits until deadline for the diagnostics of uri at version.
func (c *client) diagnosticsBy(uri string, version int, deadline time.Time) []diagnostic {
	c.t.Helper()
	for {
		p, ok := c.publication(uri, deadline)
		if !ok {
			c.t.Fatalf("no diagnostics for %s version %d", uri, version)
		}
		if p.Version == nil || *p.Version == version {
			return p.Diagnostics
		}
	}
}

func (c *client) open(uri, text string) []diagnostic {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "wrap", "version": 1, "text": text}})
	return c.diagnostics(uri, 1)
}

const testURI = "file:///tmp/approval.wrap"

const approvalSpec = `spec ApprovalTOCTOU

const MAXV = 3
type Version = 0..MAXV
type Verdict = {pass, fail}
type Doc = record { v: Version, ok: bool }

var content:  Version = 0
var approved: Version = 0
var doc: Doc
var granted:  bool = false
var released: bool = false
var shipped:  Version = 0
var last: Verdict = pass

agent checker(d: Version): Verdict
  assume result == pass implies d < MAXV

process approver {
  action approve when not granted {
    let answer = ask checker(content)
    last := answer
    approved := content
    granted := true
  }
}

process editor {
  var edits: 0..MAXV
  action edit when content < MAXV and not released {
    content := content + 1
    doc.v := content
    edits := edits
  }
}

process releaser {
  action release when granted and not released {
    released := true
    shipped := content
  }
}

invariant ShippedWhatWasApproved: released implies shipped == approved and doc.ok == doc.ok and editor.edits >= 0
terminal released
`

// at returns the LSP position of the n-th occurrence (0-based) of word in
// text, plus off runes.
func at(text, word string, n int) position {
	idx := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(text[idx+1:], word)
		if j < 0 {
			panic("no " + word)
		}
		idx += 1 + j
	}
	line := strings.Count(text[:idx], "\n")
	col := idx - (strings.LastIndex(text[:idx], "\n") + 1)
	return position{Line: line, Character: col}
}

func docPos(uri string, p position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": p}
}

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []diagnostic
	}{
		{
			name: "clean",
			text: approvalSpec,
			want: []diagnostic{},
		},
		{
			name: "syntax",
			text: "spec S\nvar x: bool = \n",
			want: []diagnostic{{Range: lspRange{Start: position{2, 0}, End: position{2, 0}}, Severity: severityError, Source: "wrapcheck", Message: "expected expression, found EOF"}},
		},
		{
			name: "undefined with suggestion, runes before it",
			text: "spec S\nvar critical: bool\ninvariant I: /* é😀 */ critcal\n",
			// 😀 is two UTF-16 code units: the rune column 22 is character 23
			want: []diagnostic{{Range: lspRange{Start: position{2, 23}, End: position{2, 30}}, Severity: severityError, Source: "wrapcheck", Message: "undefined: critcal (did you mean critical?)"}},
		},
		{
			name: "declared here",
			text: "spec S\nconst N = 2\naction a { N := 3 }\n",
			want: []diagnostic{{
				Range: lspRange{Start: position{2, 11}, End: position{2, 12}}, Severity: severityError, Source: "wrapcheck",
				Message: "cannot assign to N (N is a constant)",
				RelatedInformation: []diagnosticRelatedInformation{{
					Location: location{URI: testURI, Range: lspRange{Start: position{1, 6}, End: position{1, 7}}},
					Message:  "N declared here",
				}},
			}},
		},
		{
			name: "blindness",
			text: "spec S\nvar x: bool\nagent a(p: bool): bool assume result == x\naction go { let y = ask a(true) }\ninvariant I: x or not x\n",
			want: nil, // checked below: one error on the assume's x
		},
		{
			name: "vet",
			text: "spec S\nvar x: bool\nvar unused: bool\naction a { x := not x }\n",
			want: []diagnostic{{Range: lspRange{Start: position{2, 4}, End: position{2, 10}}, Severity: severityWarning, Source: "wrapcheck vet", Message: "variable unused is never used"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startServer(t, Options{})
			c.initialize()
			got := c.open(testURI, tt.text)
			if tt.name == "blindness" {
				if len(got) != 1 || got[0].Severity != severityError || got[0].Range.Start != (position{2, 40}) || !strings.Contains(got[0].Message, "x") {
					t.Fatalf("want one error at 2:40 about x, got %+v", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

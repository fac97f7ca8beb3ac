package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// connect starts a server and connects the SDK's own client to it, with
// the repository as its root (the examples are read from there).
func connect(t *testing.T, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return connectRoots(t, copts, repo)
}

// connectRoots is connect with the client's roots: the directories roots,
// none at all when copts.Capabilities declares no roots capability.
func connectRoots(t *testing.T, copts *sdk.ClientOptions, roots ...string) *sdk.ClientSession {
	t.Helper()
	return connectServer(t, Options{}, copts, roots...)
}

// connectServer is connectRoots with the server's options.
func connectServer(t *testing.T, opts Options, copts *sdk.ClientOptions, roots ...string) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, copts)
	for _, r := range roots {
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String()})
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and decodes its structured result into out.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v: %s", name, err, b)
		}
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestListTools(t *testing.T) {
	cs := connect(t, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s has no input schema or description", tool.Name)
		}
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"check", "examples", "explain", "fmt", "ltl", "prob", "replay", "vet"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

const toggle = `spec Toggle
var x: 0..3
var unused: bool
action inc when x < 3 { x := x + 1 }
invariant Small: x < 3
`

func TestCheck(t *testing.T) {
	cs := connect(t, nil)
	tests := []struct {
		name    string
		args    map[string]any
		verdict string
		want    []string // substrings of the text content
	}{
		{"violated by path", map[string]any{"path": "../examples/approval/toctou.wrap"}, "violated", []string{"invariant", "violated"}},
		{"violated by text", map[string]any{"spec": toggle}, "violated", []string{"Small", "variable unused is never used"}},
		{"holds with a define", map[string]any{"path": "../examples/approval/chained_shell.wrap", "defines": map[string]any{"CHECK_ALL": 1}}, "holds", []string{"holds"}},
		{"incomplete at the state limit", map[string]any{"spec": toggle, "max_states": 2}, "incomplete", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out CheckOutput
			res := call(t, cs, "check", tt.args, &out)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if out.Verdict != tt.verdict || out.Result["verdict"] != tt.verdict {
				t.Errorf("verdict %q (result %v), want %q", out.Verdict, out.Result["verdict"], tt.verdict)
			}
			if out.Result["format"] != 1.0 {
				t.Errorf("result format %v, want 1", out.Result["format"])
			}
			if tt.verdict == "violated" {
				v, _ := out.Result["violation"].(map[string]any)
				if tr, _ := v["trace"].([]any); len(tr) < 2 {
					t.Errorf("violation without a trace: %v", out.Result)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(text(res), w) {
					t.Errorf("text lacks %q:\n%s", w, text(res))
				}
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	cs := connect(t, nil)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string // the whole message; "protocol error: " and the message for a protocol error
	}{
		{"spec error", "check", map[string]any{"spec": "spec S\nvar x: bool\ninvariant I: y\n"}, "spec.wrap:3:14: undefined: y"},
		{"syntax error", "vet", map[string]any{"spec": "spec S\nvar x: \n"}, "spec.wrap:3:1: expected type, found EOF"},
		{"no source", "check", map[string]any{}, "give spec (the text of a .wrap spec) or path"},
		{"both sources", "fmt", map[string]any{"spec": "spec S\n", "path": "x.wrap"}, "give spec or path, not both"},
		{"missing file", "check", map[string]any{"path": "no/such.wrap"}, "open no/such.wrap: no such file or directory"},
		{"unknown define", "check", map[string]any{"spec": toggle, "defines": map[string]any{"NOPE": 1}}, "-D NOPE: no such constant in the spec"},
		{"unknown only", "check", map[string]any{"spec": toggle, "only": []string{"Nope"}}, "only Nope: no invariant or property of that name in Toggle"},
		{"negative limit", "check", map[string]any{"spec": toggle, "max_states": -1}, "max_states, workers and timeout_seconds must not be negative"},
		{"bad formula", "ltl", map[string]any{"formula": "always (p"}, "formula: expected ')', found EOF"},
		{"unknown example", "examples", map[string]any{"name": "nope"}, "no example \"nope\"; call examples without a name for the list"},
		{"schema: wrong type", "check", map[string]any{"spec": 3}, `validating "arguments": validating root: validating /properties/spec: type: 3 has type "integer", want "string"`},
		{"schema: unknown field", "vet", map[string]any{"spec": toggle, "colour": "red"}, `validating "arguments": validating root: unexpected additional properties ["colour"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			var got string
			switch {
			case err != nil:
				got = "protocol error: " + err.Error()
			case !res.IsError:
				t.Fatalf("no tool error: %s", text(res))
			default:
				got = text(res)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	// The server still answers.
	var out VetOutput
	if res := call(t, cs, "vet", map[string]any{"spec": toggle}, &out); res.IsError {
		t.Fatal(text(res))
	}
}

func TestVetFmtLTL(t *testing.T) {
	cs := connect(t, nil)
	var vet VetOutput
	call(t, cs, "vet", map[string]any{"spec": toggle}, &vet)
	if diff := cmp.Diff([]string{"spec.wrap:3:5: variable unused is never used"}, vet.Warnings); diff != "" {
		t.Errorf("vet (-want +got):\n%s", diff)
	}
	var f FmtOutput
	call(t, cs, "fmt", map[string]any{"spec": "spec   S\nvar x :bool\n"}, &f)
	pf, err := syntax.Parse("x.wrap", []byte("spec   S\nvar x :bool\n"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(FmtOutput{Formatted: string(syntax.Format(pf)), Changed: true}, f); diff != "" {
		t.Errorf("fmt (-want +got):\n%s", diff)
	}
	var again FmtOutput
	call(t, cs, "fmt", map[string]any{"spec": f.Formatted}, &again)
	if again.Changed || again.Formatted != f.Formatted {
		t.Errorf("fmt is not idempotent: %+v", again)
	}
	var l LTLOutput
	call(t, cs, "ltl", map[string]any{"formula": "always (req implies eventually ack)"}, &l)
	if !strings.Contains(l.Formula, "req") || !strings.Contains(l.Automaton, "state") || !strings.Contains(l.DOT, "digraph") {
		t.Errorf("ltl: %+v", l)
	}
}

func TestExamples(t *testing.T) {
	cs := connect(t, nil)
	var list ExamplesOutput
	call(t, cs, "examples", nil, &list)
	want, _ := exampleFiles(t)
	var got []string
	for _, e := range list.Examples {
		got = append(got, e.Name)
		if e.Text != "" {
			t.Errorf("the list carries the text of %s", e.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
	for _, e := range list.Examples {
		if !strings.HasSuffix(e.Summary, ".") {
			t.Errorf("the summary of %s is not a whole sentence: %q", e.Name, e.Summary)
		}
	}
	var one ExamplesOutput
	call(t, cs, "examples", map[string]any{"name": "approval/toctou"}, &one)
	b, err := os.ReadFile("../examples/approval/toctou.wrap")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Examples) != 1 || one.Examples[0].Text != string(b) {
		t.Errorf("examples approval/toctou: %+v", one)
	}
}

func exampleFiles(t *testing.T) ([]string, error) {
	t.Helper()
	var out []string
	dirs, err := os.ReadDir("../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, _ := os.ReadDir("../examples/" + d.Name())
		for _, f := range files {
			if n, ok := strings.CutSuffix(f.Name(), ".wrap"); ok {
				out = append(out, d.Name()+"/"+n)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func TestResources(t *testing.T) {
	cs := connect(t, nil)
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range res.Resources {
		uris[r.URI] = true
	}
	for _, u := range []string{"wrapcheck://docs/agents.md", "wrapcheck://docs/language.md", "wrapcheck://docs/patterns.md", "wrapcheck://examples/approval/toctou.wrap"} {
		if !uris[u] {
			t.Errorf("no resource %s", u)
			continue
		}
		rr, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: u})
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		file := strings.Replace(strings.TrimPrefix(u, "wrapcheck://"), "docs/", "../docs/", 1)
		file = strings.Replace(file, "examples/", "../examples/", 1)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].Text != string(b) {
			t.Errorf("%s: contents differ from %s", u, file)
		}
	}
}

// big has about 125 million states without reductions: a check of it
// runs until it is stopped.
const big = `spec Big
var a: 0..500
var b: 0..500
var c: 0..500
action ia when a < 500 { a := a + 1 }
action ib when b < 500 { b := b + 1 }
action ic when c < 500 { c := c + 1 }
invariant Fine: a + b + c >= 0
terminal a == 500 and b == 500 and c == 500
`

func TestCancel(t *testing.T) {
	cs := connect(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "check", Arguments: map[string]any{"spec": big, "no_por": true, "no_symmetry": true, "timeout_seconds": 120}})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the cancelled call returned no error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	// The server stopped the search: a second call is answered at once.
	var out VetOutput
	if res := call(t, cs, "vet", map[string]any{"spec": toggle}, &out); res.IsError {
		t.Fatal(text(res))
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("cancellation took %v", el)
	}
}

func TestTimeoutAndProgress(t *testing.T) {
	var mu sync.Mutex
	var progress []float64
	cs := connect(t, &sdk.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Progress)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: "check", Arguments: map[string]any{"spec": big, "no_por": true, "no_symmetry": true, "timeout_seconds": 2.5}}
	params.SetProgressToken("tok")
	start := time.Now()
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("a 2.5 s time limit took %v", el)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out CheckOutput
	json.Unmarshal(b, &out)
	if out.Verdict != "incomplete" {
		t.Errorf("verdict after the time limit: %q: %s", out.Verdict, text(res))
	}
	// Progress notifications may arrive just after the response.
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) == 0 {
		t.Errorf("no progress notification during a 2.5 s check")
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] < progress[i-1] {
			t.Errorf("progress went back: %v", progress)
		}
	}
}

// TestServeStdio runs Serve, the stdio server of `wrapcheck mcp`, on pipes
// and talks to it with the SDK's client over the same newline-delimited
// JSON transport.
func TestServeStdio(t *testing.T) {
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), Options{}, toServerR, fromServerW)
		fromServerW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(),
		&sdk.IOTransport{Reader: fromServerR, Writer: toServerW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out FmtOutput
	call(t, cs, "fmt", map[string]any{"spec": "spec   S\nvar x :bool\n"}, &out)
	if !out.Changed || !strings.HasPrefix(out.Formatted, "spec S\n") {
		t.Errorf("fmt over stdio: %+v", out)
	}
	cs.Close()
	toServerW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v, want nil at the end of input", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return at the end of input")
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"one line", "// A lock.\nspec S\n", "A lock."},
		{"a sentence over lines", "// A permission gate for a coding agent's shell\n// commands. Command lines run.\n", "A permission gate for a coding agent's shell commands."},
		{"a period inside a name", "// pipeline.wrap with a fix. More.\n", "pipeline.wrap with a fix."},
		{"the paragraph ends it", "// No period here\n//\n// Expected: holds.\n", "No period here"},
		{"blank comment lines first", "//\n// A lock.\n", "A lock."},
		{"no comment", "spec S\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summary(tt.text)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOnce: every tool gives its report once, as the structured result,
// with one text content, a summary of a few lines that holds none of the
// report's JSON nor its long text (the spec, the trace, the automaton).
func TestOnce(t *testing.T) {
	cs := connect(t, nil)
	toctou, err := os.ReadFile("../examples/approval/toctou.wrap")
	if err != nil {
		t.Fatal(err)
	}
	messy := "spec   S\nvar x :bool\nvar y:   bool\n"
	run := `{"action": "approver.approve"}` + "\n" + `{"action": "editor.edit"}` + "\n" + `{"action": "releaser.release"}` + "\n"
	tests := []struct {
		tool   string
		args   map[string]any
		prefix string   // the text starts so
		absent []string // parts of the report the text must not repeat
		fields []string // the structured result's fields
	}{
		{"check", map[string]any{"path": "../examples/approval/toctou.wrap"}, "ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated (trace of 3 steps)\n",
			[]string{"approver.approve", "shipped = 1"}, []string{"result", "verdict", "warnings"}},
		{"explain", map[string]any{"path": "../examples/approval/toctou.wrap"}, "ApprovalTOCTOU: invariant ShippedWhatWasApproved is violated\ntrace of 3 steps, 3 essential\n",
			[]string{"because", "approver.approve", "(*)"}, []string{"explanation", "verdict"}},
		{"explain", map[string]any{"path": "../examples/classic/peterson.wrap"}, "Peterson: property StarvationFree is violated\nlasso of 3 steps, the cycle from step 3\n",
			[]string{"fairness weak", "P[0]"}, []string{"explanation", "verdict"}},
		{"vet", map[string]any{"spec": toggle}, "spec.wrap: 1 finding, the first: spec.wrap:3:5: variable unused is never used\n",
			nil, []string{"warnings"}},
		{"fmt", map[string]any{"spec": messy}, "spec.wrap: the layout changed; formatted (the structured result) holds the spec in the canonical layout, ",
			[]string{"var x: bool", "spec S"}, []string{"changed", "formatted"}},
		{"ltl", map[string]any{"formula": "always (req implies eventually ack)"}, "formula: ",
			[]string{"digraph", "initial"}, []string{"automaton", "dot", "formula"}},
		{"replay", map[string]any{"path": "../examples/approval/toctou.wrap", "run": run}, "run.jsonl:3: the run reaches a violation of the spec\nApprovalTOCTOU: invariant ShippedWhatWasApproved is violated\n",
			[]string{"shipped = 1", "content = 1"}, []string{"line", "result", "steps", "verdict"}},
		{"prob", map[string]any{"path": "../bench/prism/coin.wrap"}, "Coin: every bound holds (3 queries, 1 expected costs)\n",
			[]string{"49/128", "5/9"}, []string{"result", "verdict"}},
		{"examples", nil, fmt.Sprintf("%d examples; ", strings.Count(mustList(t), "\n")),
			[]string{"approval/toctou"}, []string{"examples"}},
		{"examples", map[string]any{"name": "approval/toctou"}, "approval/toctou: ",
			[]string{string(toctou[:200]), "invariant ShippedWhatWasApproved"}, []string{"examples"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args, nil)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if len(res.Content) != 1 {
				t.Fatalf("%d content items, want 1 (the summary)", len(res.Content))
			}
			if _, ok := res.Content[0].(*sdk.TextContent); !ok {
				t.Fatalf("content is a %T, want text", res.Content[0])
			}
			got := text(res)
			if !strings.HasPrefix(got, tt.prefix) || strings.Count(got, "\n") > 4 || len(got) > 600 || strings.Contains(got, "{") {
				t.Errorf("text content %q, want a summary of at most 4 lines and 600 bytes, no JSON, that starts %q", got, tt.prefix)
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("text content repeats the report's %q:\n%s", a, got)
				}
			}
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(b, &fields); err != nil {
				t.Fatalf("structured result %s: %v", b, err)
			}
			var keys []string
			for k := range fields {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if diff := cmp.Diff(tt.fields, keys); diff != "" {
				t.Errorf("structured fields (-want +got):\n%s", diff)
			}
		})
	}
}

// mustList is the examples' names, one a line.
func mustList(t *testing.T) string {
	names, _ := exampleFiles(t)
	return strings.Join(names, "\n") + "\n"
}

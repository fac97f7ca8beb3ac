package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// runtimeSpec fails with a runtime error after one step.
const runtimeSpec = `spec Range
var x: 0..3
action grow { x := x + 2 }
`

// threeBugsSpec has three violated invariants and a violated property;
// --continue reports them all.
const threeBugsSpec = `spec ThreeBugs
var a: 0..3
var b: 0..3
var c: 0..3
process pa { action inc when a < 3 { a := a + 1 } }
process pb { action inc when b < 3 { b := b + 1 } }
process pc {
  action inc when c < 3 { c := c + 1 }
  action reset when c == 3 { c := 0 }
}
invariant A: a < 2
invariant Fine: a + b <= 6
invariant B: b < 3
invariant C: not (a == 1 and c == 2)
property L: eventually a == 3
`

// hostileSpec fails an assertion whose message tries to forge GitHub
// workflow commands and rings the terminal bell.
const hostileSpec = "spec Hostile\nvar x: 0..3\naction a when x < 3 { x := x + 1\n" +
	`  assert x < 2 "x\n::error file=evil.wrap,line=1::INJECTED\n::add-mask::s\a\x1b[31m" }` + "\n"

// cases are the results every renderer is tested on: an invariant, a
// trace with agent answers, a lasso, a deadlock, a runtime error, a spec
// that holds, an incomplete search, four violated checks (--continue)
// and an assertion message with control characters in a file whose name
// has some.
var cases = []struct {
	name, path string
	src        string // instead of path
	opts       verify.Options
	verdict    verdict.Verdict
}{
	{name: "invariant", path: "approval/toctou.wrap", verdict: verdict.Violated},
	{name: "agents", path: "pipeline/pass_with_issues.wrap", verdict: verdict.Violated},
	{name: "lasso", path: "classic/traffic_light_weak.wrap", verdict: verdict.Violated},
	{name: "deadlock", path: "classic/naive_mutex_deadlock.wrap", verdict: verdict.Violated},
	{name: "runtime", src: runtimeSpec, verdict: verdict.Violated},
	{name: "holds", path: "classic/traffic_light.wrap", verdict: verdict.Holds},
	{name: "incomplete", path: "pipeline/pipeline.wrap", opts: verify.Options{MaxStates: 10}, verdict: verdict.Unknown},
	{name: "past", path: "approval/toctou_past.wrap", verdict: verdict.Violated},
	{name: "past-stutter", src: pastStutterSpec, verdict: verdict.Violated},
	{name: "continue", src: threeBugsSpec, opts: verify.Options{Continue: true}, verdict: verdict.Violated},
	{name: "sequence", path: "../testdata/sequences.wrap", verdict: verdict.Violated},
	{name: "hostile\n::error file=x.wrap::\a\x1b[2J", src: hostileSpec, verdict: verdict.Violated},
}

// pastStutterSpec is violated only on the repetition of its final state,
// where a past-time monitor changes: the lasso has a step without action.
const pastStutterSpec = `spec PastStutter
var x: 0..1
action a when x == 0 { x := 1 }
terminal x == 1
property Q: always (x == 0 or previously x == 0)
`

type result struct {
	m   *spec.Model
	res *verdict.Result
}

func checkCase(t *testing.T, i int) result {
	t.Helper()
	c := cases[i]
	src := []byte(c.src)
	name := c.name + ".wrap"
	if c.path != "" {
		var err error
		src, err = os.ReadFile(filepath.Join("..", "examples", c.path))
		if err != nil {
			t.Fatal(err)
		}
		name = c.path
	}
	m, err := spec.ParseFile(name, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := c.opts
	opts.Workers = 1
	res, err := verify.Run(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != c.verdict {
		t.Fatalf("verdict %v, want %v", res.Verdict, c.verdict)
	}
	return result{m, res}
}

func render(t *testing.T, f func(w *bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestJSONSchema validates the JSON output of the examples against
// docs/json-schema.json.
func TestJSONSchema(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema.json")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := render(t, func(w *bytes.Buffer) error { return report.JSON(w, r.m, r.res) })
			x, err := decodeJSON(out)
			if err != nil {
				t.Fatalf("output is not one JSON value: %v\n%s", err, out)
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
		})
	}
}

// TestGraphJSONSchema validates a state graph (the trace, as a graph)
// against docs/json-schema-graph.json.
func TestGraphJSONSchema(t *testing.T) {
	s := loadSchema(t, "../docs/json-schema-graph.json")
	for i, c := range cases[:3] {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			v := r.res.Violation
			g := &report.StateGraph{Truncated: true}
			for j, st := range v.Trace {
				g.Nodes = append(g.Nodes, report.GraphNode{State: st.State, Initial: j == 0})
				if j > 0 {
					g.Edges = append(g.Edges, report.GraphEdge{From: j - 1, To: j, Actions: []int{st.Action}})
				}
			}
			out := render(t, func(w *bytes.Buffer) error { return g.JSON(w, r.m, v) })
			x, err := decodeJSON(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			if !strings.Contains(string(out), `"on_trace": true`) {
				t.Errorf("no node or edge on the trace:\n%s", out)
			}
		})
	}
}

// TestSARIF validates the SARIF output against the vendored subset of
// the SARIF 2.1.0 schema and checks the result and its code flow.
func TestSARIF(t *testing.T) {
	// sarif-2.1.0-rtm.5.json is the official OASIS schema, as shipped in
	// the npm package @microsoft/jest-sarif 1.0.0-beta.0 (MIT);
	// sarif-2.1.0-subset.json is our stricter reading of the parts we emit.
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	s := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := render(t, func(w *bytes.Buffer) error { return report.SARIF(w, r.m, r.res) })
			x, err := decodeJSON(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			for _, e := range official.validate(x) {
				t.Errorf("official schema: %s", e)
			}
			run := x.(map[string]any)["runs"].([]any)[0].(map[string]any)
			results := run["results"].([]any)
			v := r.res.Violation
			if v == nil {
				if len(results) != 0 {
					t.Errorf("%d results, want none", len(results))
				}
				return
			}
			if n := len(report.Violations(r.res)); len(results) != n {
				t.Fatalf("%d results, want one per violation (%d)", len(results), n)
			}
			res := results[0].(map[string]any)
			want := v.Name
			if v.Kind != verdict.Invariant && v.Kind != verdict.Property {
				want = v.Kind.String()
			}
			if res["ruleId"] != want || res["level"] != "error" {
				t.Errorf("ruleId %v level %v, want %s error", res["ruleId"], res["level"], want)
			}
			rules := map[any]bool{}
			for _, rule := range run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any) {
				rules[rule.(map[string]any)["id"]] = true
			}
			if !rules[want] {
				t.Errorf("no rule %s among %v", want, rules)
			}
			tf := res["codeFlows"].([]any)[0].(map[string]any)["threadFlows"].([]any)[0].(map[string]any)
			if n := len(tf["locations"].([]any)); n != len(v.Trace) {
				t.Errorf("%d thread-flow locations, want one per step (%d)", n, len(v.Trace))
			}
		})
	}
}

// TestJUnit parses the JUnit output and checks one testcase per check,
// with the right status.
func TestJUnit(t *testing.T) {
	type tcase struct {
		Name    string    `xml:"name,attr"`
		Failure *struct{} `xml:"failure"`
		Skipped *struct{} `xml:"skipped"`
	}
	type suites struct {
		Suites []struct {
			Name     string  `xml:"name,attr"`
			Tests    int     `xml:"tests,attr"`
			Failures int     `xml:"failures,attr"`
			Skipped  int     `xml:"skipped,attr"`
			Cases    []tcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := render(t, func(w *bytes.Buffer) error { return report.JUnit(w, r.m, r.res) })
			var got suites
			if err := xml.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(got.Suites) != 1 || got.Suites[0].Name != r.m.Name {
				t.Fatalf("want one testsuite %s:\n%s", r.m.Name, out)
			}
			s := got.Suites[0]
			wantTests := len(r.m.Invariants) + len(r.m.Properties) + 1
			for _, v := range report.Violations(r.res) {
				if v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError {
					wantTests++
				}
			}
			failures, skipped := 0, 0
			for _, tc := range s.Cases {
				if tc.Failure != nil {
					failures++
				}
				if tc.Skipped != nil {
					skipped++
				}
			}
			if diff := cmp.Diff([]int{wantTests, failures, skipped}, []int{s.Tests, s.Failures, s.Skipped}); diff != "" || len(s.Cases) != wantTests {
				t.Errorf("tests, failures, skipped (-want +got):\n%s", diff)
			}
			switch c.verdict {
			case verdict.Violated:
				if n := len(report.Violations(r.res)); failures != n {
					t.Errorf("%d failures, want %d", failures, n)
				}
			case verdict.Holds:
				if failures+skipped != 0 {
					t.Errorf("%d failures, %d skipped, want none", failures, skipped)
				}
			case verdict.Unknown:
				if skipped != wantTests {
					t.Errorf("%d skipped, want all %d", skipped, wantTests)
				}
			}
		})
	}
}

// TestMermaidSyntax checks the Mermaid output line by line against the
// sequenceDiagram grammar wrapcheck emits (the mermaid CLI needs a
// browser): declared participants, messages between them, notes, loop
// blocks closed by end, and texts free of statement separators.
func TestMermaidSyntax(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := string(render(t, func(w *bytes.Buffer) error { return report.Mermaid(w, r.m, r.res) }))
			if errs := checkMermaid(out); len(errs) > 0 {
				t.Errorf("%s\n%s", strings.Join(errs, "\n"), out)
			}
			v := r.res.Violation
			if v == nil {
				return
			}
			if got, want := strings.Count(out, "\n  loop ")+strings.Count(out, "\n    loop "), btoi(v.LoopStart >= 0); got != want {
				t.Errorf("%d loop blocks, want %d", got, want)
			}
			asks := 0
			for _, st := range v.Trace {
				asks += len(st.Asked)
			}
			if got := strings.Count(out, ": ask "); got != asks {
				t.Errorf("%d agent requests, want %d", got, asks)
			}
		})
	}
	if errs := checkMermaid("sequenceDiagram\n  participant p0 as a\n  p0->>p1: x; y\n  loop l\n"); len(errs) != 3 {
		t.Errorf("the checker accepts bad diagrams: %v", errs)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

var (
	mmParticipant = regexp.MustCompile(`^participant ([A-Za-z][A-Za-z0-9_]*)( as (.+))?$`)
	mmMessage     = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)(->>|-->>|->|-->|-x|--x)([A-Za-z][A-Za-z0-9_]*): (.+)$`)
	mmNote        = regexp.MustCompile(`^Note (over|left of|right of) ([A-Za-z][A-Za-z0-9_]*)(,([A-Za-z][A-Za-z0-9_]*))?: (.+)$`)
	mmLoop        = regexp.MustCompile(`^loop (.+)$`)
	mmRect        = regexp.MustCompile(`^rect rgba?\([0-9, .]+\)$`)
	mmEntity      = regexp.MustCompile(`#([0-9]+|[a-z]+);`)
)

// checkMermaid returns the grammar errors of a sequenceDiagram.
func checkMermaid(src string) []string {
	var errs []string
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if len(lines) == 0 || lines[0] != "sequenceDiagram" {
		return []string{"line 1: want sequenceDiagram"}
	}
	declared := map[string]bool{}
	depth := 0
	text := func(n int, s string) {
		s = mmEntity.ReplaceAllString(s, "")
		if strings.ContainsAny(s, ";#") {
			errs = append(errs, fmt.Sprintf("line %d: unescaped ; or # in %q", n, s))
		}
	}
	use := func(n int, ids ...string) {
		for _, id := range ids {
			if id != "" && !declared[id] {
				errs = append(errs, fmt.Sprintf("line %d: undeclared participant %s", n, id))
			}
		}
	}
	for i, line := range lines[1:] {
		n := i + 2
		l := strings.TrimSpace(line)
		switch {
		case mmParticipant.MatchString(l):
			sm := mmParticipant.FindStringSubmatch(l)
			if declared[sm[1]] {
				errs = append(errs, fmt.Sprintf("line %d: participant %s declared twice", n, sm[1]))
			}
			declared[sm[1]] = true
			text(n, sm[3])
		case mmMessage.MatchString(l):
			sm := mmMessage.FindStringSubmatch(l)
			use(n, sm[1], sm[3])
			text(n, sm[4])
		case mmNote.MatchString(l):
			sm := mmNote.FindStringSubmatch(l)
			use(n, sm[2], sm[4])
			text(n, sm[5])
		case mmLoop.MatchString(l):
			depth++
			text(n, mmLoop.FindStringSubmatch(l)[1])
		case mmRect.MatchString(l):
			depth++
		case l == "end":
			if depth == 0 {
				errs = append(errs, fmt.Sprintf("line %d: end without loop", n))
			}
			depth--
		default:
			errs = append(errs, fmt.Sprintf("line %d: not a sequenceDiagram statement: %q", n, l))
		}
	}
	if depth > 0 {
		errs = append(errs, "loop without end")
	}
	return errs
}

// TestDOT checks the trace DOT output is a well-formed digraph: balanced
// braces and quotes, one node per trace entry, the last one red.
func TestDOT(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := string(render(t, func(w *bytes.Buffer) error { return report.DOT(w, r.m, r.res) }))
			if !strings.HasPrefix(out, "strict digraph {\n") || !strings.HasSuffix(out, "}\n") {
				t.Fatalf("not a digraph:\n%s", out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Count(strings.ReplaceAll(line, `\"`, ""), `"`)%2 != 0 {
					t.Errorf("unbalanced quotes: %s", line)
				}
			}
			if v := r.res.Violation; v != nil {
				nodes := regexp.MustCompile(`(?m)^\t"s\d+" \[`).FindAllString(out, -1)
				want := len(v.Trace)
				if len(report.Violations(r.res)) > 1 {
					want++ // the note naming the others
				}
				if len(nodes) != want {
					t.Errorf("%d nodes, want %d", len(nodes), want)
				}
				if !strings.Contains(out, `color="red"`) {
					t.Error("no red node")
				}
			}
		})
	}
}

// TestFold checks that long sets and arrays fold with an ellipsis and
// their count, and short ones print whole.
func TestFold(t *testing.T) {
	elem := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 63, Width: 1}
	set := &spec.Type{Kind: spec.SetKind, Elem: elem, Width: 1}
	tests := []struct {
		name string
		mask int64
		want string
	}{
		{"short", 0b1011, "{0, 1, 3}"},
		{"empty", 0, "{}"},
		{"long", -1, `^\{0, 1, 2, .*, …\} \(64 elements\)$`},
	}
	idx := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 39, Width: 1}
	arr := &spec.Type{Kind: spec.ArrayKind, Index: idx, Elem: elem, Width: 40}
	slots := make([]int64, 40)
	for i := range slots {
		slots[i] = int64(i)
	}
	if got := report.ValueText(arr, slots); !regexp.MustCompile(`^\[0, 1, 2, .*, …\] \(40 elements\)$`).MatchString(got) {
		t.Errorf("array: got %q", got)
	}
	if got := report.ValueText(arr, slots[:40]); len([]rune(got)) > 110 {
		t.Errorf("array fold too long: %q", got)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := report.ValueText(set, []int64{tt.mask})
			if tt.name == "long" {
				if !regexp.MustCompile(tt.want).MatchString(got) || len([]rune(got)) > 110 {
					t.Errorf("got %q, want a fold matching %s", got, tt.want)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTextColor checks that colour appears only when asked, and that
// the text is otherwise the same.
func TestTextColor(t *testing.T) {
	r := checkCase(t, 0)
	plain := render(t, func(w *bytes.Buffer) error { return report.Text(w, r.m, r.res) })
	color := render(t, func(w *bytes.Buffer) error { return report.TextOptions{Color: true}.Render(w, r.m, r.res) })
	if bytes.Contains(plain, []byte("\033[")) {
		t.Error("plain text has ANSI escapes")
	}
	if !bytes.Contains(color, []byte("\033[1;31m")) {
		t.Error("coloured text has no red headline")
	}
	strip := regexp.MustCompile("\033\\[[0-9;]*m").ReplaceAll(color, nil)
	if diff := cmp.Diff(string(plain), string(strip)); diff != "" {
		t.Errorf("text without colour codes differs (-plain +stripped):\n%s", diff)
	}
}

// TestGitHub checks the workflow command of a violation.
func TestGitHub(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := checkCase(t, i)
			out := string(render(t, func(w *bytes.Buffer) error { return report.GitHub(w, r.m, r.res) }))
			if r.res.Violation == nil {
				if out != "" {
					t.Errorf("annotation without a violation: %s", out)
				}
				return
			}
			re := regexp.MustCompile(`^::error file=[^,:]+,line=\d+,col=\d+,title=[^:,]+::[^\n\r]+$`)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if n := len(report.Violations(r.res)); len(lines) != n || !strings.HasSuffix(out, "\n") {
				t.Errorf("%d lines, want one per violation (%d):\n%s", len(lines), n, out)
			}
			for _, l := range lines {
				if !re.MatchString(l) {
					t.Errorf("not a workflow command: %q", l)
				}
			}
		})
	}
}

// TestOfficialSARIFRejects: the official schema, through our validator,
// does reject malformed logs (so TestSARIF can fail).
func TestOfficialSARIFRejects(t *testing.T) {
	s := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	for _, bad := range []string{
		`{"version": "2.1.0", "runs": [{"tool": {}}]}`,
		`{"version": "2.0.0", "runs": []}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "w"}}, "results": [{"message": {"text": "x"}, "level": "fatal"}]}]}`,
	} {
		x, err := decodeJSON([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.validate(x)) == 0 {
			t.Errorf("the official schema accepts %s", bad)
		}
	}
}

// TestHostile renders, in every format, the violated assertion of
// hostileSpec in a file named with control characters: no output holds a
// terminal escape (ESC, BEL) or any other control character but newline
// and tab, no line but the GitHub annotations starts with "::", JSON
// parses, and JUnit parses as XML (and passes xmllint when installed).
func TestHostile(t *testing.T) {
	i := len(cases) - 1
	if !strings.HasPrefix(cases[i].name, "hostile") {
		t.Fatal("the last case is not the hostile one")
	}
	r := checkCase(t, i)
	if v := r.res.Violation; v == nil || !strings.Contains(v.Msg, "\n::add-mask::") || !strings.Contains(v.Pos.Filename, "\a") {
		t.Fatalf("the violation does not carry the hostile message and file name: %+v", v)
	}
	for _, f := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"text", func(w *bytes.Buffer) error { return report.Text(w, r.m, r.res) }},
		{"color", func(w *bytes.Buffer) error {
			return report.TextOptions{Color: true, Explain: true}.Render(w, r.m, r.res)
		}},
		{"json", func(w *bytes.Buffer) error { return report.JSON(w, r.m, r.res) }},
		{"sarif", func(w *bytes.Buffer) error { return report.SARIF(w, r.m, r.res) }},
		{"junit", func(w *bytes.Buffer) error { return report.JUnit(w, r.m, r.res) }},
		{"mermaid", func(w *bytes.Buffer) error { return report.Mermaid(w, r.m, r.res) }},
		{"dot", func(w *bytes.Buffer) error { return report.DOT(w, r.m, r.res) }},
		{"github", func(w *bytes.Buffer) error { return report.GitHub(w, r.m, r.res) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			out := render(t, f.render)
			if f.name == "color" {
				out = regexp.MustCompile("\033\\[[0-9;]*m").ReplaceAll(out, nil) // its own colours
			}
			for _, c := range string(out) {
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Errorf("control character %q in the output:\n%q", c, out)
					break
				}
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "::") && !(f.name == "github" && strings.HasPrefix(l, "::error file=")) {
					t.Errorf("a line starts with \"::\": %q", l)
				}
			}
			if f.name == "github" && strings.Count(string(out), "\n") != 1 {
				t.Errorf("user data forged workflow commands: %q", out)
			}
			switch f.name {
			case "json", "sarif":
				var x any
				if err := json.Unmarshal(out, &x); err != nil {
					t.Errorf("not JSON: %v\n%s", err, out)
				}
			case "junit":
				var x struct{}
				if err := xml.Unmarshal(out, &x); err != nil {
					t.Errorf("not XML: %v\n%s", err, out)
				}
				xmllint(t, out)
			}
		})
	}
}

// xmllint checks doc with xmllint when it is installed (on CI it must be).
func xmllint(t *testing.T, doc []byte) {
	t.Helper()
	path := testenv.Optional(t, "xmllint", "install xmllint (apt-get install libxml2-utils) to validate the JUnit XML")
	if path == "" {
		return
	}
	cmd := exec.Command(path, "--noout", "-")
	cmd.Stdin = bytes.NewReader(doc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

// TestEscape checks the escaping of user data in human-facing output.
func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, → unicode", "plain text, → unicode"},
		{"a\nb", `a\nb`},
		{"x\n::error file=evil.wrap,line=1::INJECTED", `x\n::error file=evil.wrap,line=1::INJECTED`},
		{"bell\a esc\x1b[31m del\x7f c1\u0085", `bell\a esc\x1b[31m del\x7f c1\x85`},
		{"cr\r tab\t", `cr\r tab\t`},
		{"bidi\u202e sep\u2028", `bidi\u202e sep\u2028`},
		{`back\slash`, `back\slash`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, report.Escape(tt.in)); diff != "" {
			t.Errorf("Escape(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestErrorReport validates the error outcome (a spec error, a
// command-line error) in JSON against docs/json-schema.json, in SARIF
// against the official schema and the subset, and in JUnit as XML; and a
// result with warnings under --strict against the JSON schema.
func TestErrorReport(t *testing.T) {
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	subset := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	js := loadSchema(t, "../docs/json-schema.json")
	_, specErr := spec.ParseFile("bad.wrap", []byte("spec Bad\nvar x: 0..3\naction a { x := true }\naction b { y := 1 }\n"), spec.Options{})
	if specErr == nil {
		t.Fatal("the bad spec parses")
	}
	tests := []struct {
		name string
		r    report.ErrorReport
		n    int
	}{
		{"spec", report.ErrorReport{File: "bad.wrap", Errors: report.Diagnostics(specErr), ToolVersion: "v1.2.3"}, 2},
		{"usage", report.ErrorReport{File: "bad.wrap", Errors: report.Diagnostics(fmt.Errorf("--progress bogus: want auto, json, off"))}, 1},
		{"usage-no-file", report.ErrorReport{Errors: report.Diagnostics(fmt.Errorf("accepts 1 arg(s)\n::error::x\a"))}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.r.Errors) != tt.n {
				t.Fatalf("%d errors, want %d: %v", len(tt.r.Errors), tt.n, tt.r.Errors)
			}
			out := render(t, func(w *bytes.Buffer) error { return tt.r.JSON(w) })
			x, err := decodeJSON(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range js.validate(x) {
				t.Errorf("json: %s", e)
			}
			if got := x.(map[string]any)["verdict"]; got != "error" {
				t.Errorf("verdict %v, want error", got)
			}
			out = render(t, func(w *bytes.Buffer) error { return tt.r.SARIF(w) })
			if x, err = decodeJSON(out); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, e := range official.validate(x) {
				t.Errorf("sarif, official schema: %s", e)
			}
			for _, e := range subset.validate(x) {
				t.Errorf("sarif: %s", e)
			}
			results := x.(map[string]any)["runs"].([]any)[0].(map[string]any)["results"].([]any)
			if len(results) != tt.n {
				t.Errorf("%d SARIF results, want %d", len(results), tt.n)
			}
			out = render(t, func(w *bytes.Buffer) error { return tt.r.JUnit(w) })
			var suites struct {
				Errors int `xml:"errors,attr"`
			}
			if err := xml.Unmarshal(out, &suites); err != nil || suites.Errors != 1 {
				t.Errorf("junit: %v, %d errors, want 1\n%s", err, suites.Errors, out)
			}
			xmllint(t, out)
			out = render(t, func(w *bytes.Buffer) error { return tt.r.GitHub(w) })
			if n := strings.Count(string(out), "\n"); n != tt.n || !regexp.MustCompile(`(?m)\A(::error [^\n]*::[^\n]*\n)+\z`).Match(out) {
				t.Errorf("github: want %d ::error lines:\n%s", tt.n, out)
			}
		})
	}
	t.Run("warnings", func(t *testing.T) {
		r := checkCase(t, 5) // holds
		ws := []report.Diagnostic{{Pos: spec.Position{Filename: "holds.wrap", Line: 3, Col: 5}, Msg: "variable unused is never used"}}
		out := render(t, func(w *bytes.Buffer) error {
			return report.JSONOptions{Warnings: ws, Strict: true}.Render(w, r.m, r.res)
		})
		x, err := decodeJSON(out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, e := range js.validate(x) {
			t.Errorf("json: %s", e)
		}
		if got := x.(map[string]any)["warnings"]; got == nil {
			t.Errorf("no warnings:\n%s", out)
		}
		out = render(t, func(w *bytes.Buffer) error { return report.SARIFOptions{Warnings: ws}.Render(w, r.m, r.res) })
		if x, err = decodeJSON(out); err != nil {
			t.Fatal(err)
		}
		for _, e := range official.validate(x) {
			t.Errorf("sarif, official schema: %s", e)
		}
		for _, e := range subset.validate(x) {
			t.Errorf("sarif: %s", e)
		}
	})
}

// TestMerge validates the documents of several files: SARIF runs merged
// into one log (both schemas), JUnit testsuites merged, and the JSON
// summary object against docs/json-schema.json.
func TestMerge(t *testing.T) {
	var sarifs, junits [][]byte
	for _, i := range []int{0, 5} {
		r := checkCase(t, i)
		sarifs = append(sarifs, render(t, func(w *bytes.Buffer) error { return report.SARIF(w, r.m, r.res) }))
		junits = append(junits, render(t, func(w *bytes.Buffer) error { return report.JUnit(w, r.m, r.res) }))
	}
	out := render(t, func(w *bytes.Buffer) error { return report.MergeSARIF(w, sarifs) })
	x, err := decodeJSON(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, path := range []string{"testdata/sarif-2.1.0-rtm.5.json", "testdata/sarif-2.1.0-subset.json"} {
		for _, e := range loadSchema(t, path).validate(x) {
			t.Errorf("%s: %s", path, e)
		}
	}
	if n := len(x.(map[string]any)["runs"].([]any)); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
	out = render(t, func(w *bytes.Buffer) error { return report.MergeJUnit(w, junits) })
	var suites struct {
		Tests  int        `xml:"tests,attr"`
		Suites []struct{} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &suites); err != nil || len(suites.Suites) != 2 {
		t.Errorf("junit: %v, %d testsuites, want 2\n%s", err, len(suites.Suites), out)
	}
	xmllint(t, out)
	x, err = decodeJSON([]byte(`{"format":1,"summary":{"files":3,"holds":1,"violated":1,"incomplete":0,"error":1},"exit_code":2}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loadSchema(t, "../docs/json-schema.json").validate(x) {
		t.Errorf("summary: %s", e)
	}
}

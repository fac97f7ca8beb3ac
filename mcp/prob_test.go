package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
)

// flagSpec has a bound kept at the point estimate of its counts (1/3)
// and not over their interval (Flag), and a bound broken (Twice).
const flagSpec = `spec Flag
var flagged: bool
var done: bool
agent verifier(): bool
rate verifier { true: 3 of 9; false: 6 of 9 }
action verify when not done {
  flagged := ask verifier()
  done := true
}
probability Flag: eventually flagged bound <= 1/2
probability Twice: eventually flagged bound <= 1/4
`

// TestProb: the prob tool over the SDK's client: the verdict, the
// values as exact fractions in the structured result (the JSON of prob
// --format json), the bounds broken or undecided in the text, and the
// limits.
func TestProb(t *testing.T) {
	cs := connect(t, nil)
	tests := []struct {
		name    string
		args    map[string]any
		verdict string
		values  map[string]string // query: min/max exact
		want    []string          // substrings of the text content
	}{
		{"by path", map[string]any{"path": "../bench/prism/gambler.wrap"}, "violated",
			map[string]string{"Rich": "1/5 1/3", "Ruin": " 4/5"}, []string{"Gambler: a bound can be broken", "gambler.wrap:30:1: Ruin: P_max(eventually money == 0) = 4/5 (0.800000): bound <= 1/2 violated"}},
		{"holds", map[string]any{"path": "../bench/prism/gambler.wrap", "only": []string{"Rich"}}, "holds",
			map[string]string{"Rich": "1/5 1/3"}, []string{"Gambler: every bound holds"}},
		{"a bound broken", map[string]any{"spec": flagSpec, "only": []string{"Twice"}}, "violated",
			map[string]string{"Twice": " 1/3"}, []string{"Flag: a bound can be broken", "spec.wrap:11:1: Twice: P_max(eventually flagged) = 1/3 (0.333333): bound <= 1/4 violated"}},
		{"not decided by the counts", map[string]any{"spec": flagSpec, "only": []string{"Flag"}}, "unknown",
			map[string]string{"Flag": " 1/3"}, []string{"not decided by the counts", "[0.074854, 0.700705]"}},
		{"a narrower level decides it", map[string]any{"spec": flagSpec, "only": []string{"Flag"}, "confidence": 0.2}, "holds", nil, nil},
		{"incomplete at the state limit", map[string]any{"path": "../bench/prism/herman5.wrap", "max_states": 3}, "incomplete", nil, []string{"incomplete: quant: model too large"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out ProbOutput
			res := call(t, cs, "prob", tt.args, &out)
			if res.IsError {
				t.Fatalf("tool error: %s", text(res))
			}
			if out.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q: %s", out.Verdict, tt.verdict, text(res))
			}
			if out.Verdict == "incomplete" {
				if out.Result != nil || out.Reason == "" {
					t.Errorf("incomplete with result %v, reason %q", out.Result, out.Reason)
				}
			} else if out.Result["verdict"] != tt.verdict || out.Result["format"] != 1.0 {
				t.Errorf("result verdict %v format %v, want %s 1", out.Result["verdict"], out.Result["format"], tt.verdict)
			}
			for name, want := range tt.values {
				if got := exactOf(out.Result, name); got != want {
					t.Errorf("%s: min max %q, want %q", name, got, want)
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

// exactOf returns the exact min and max of query name in a prob
// result, "min max" ("" for one not computed).
func exactOf(result map[string]any, name string) string {
	qs, _ := result["queries"].([]any)
	for _, q := range qs {
		q := q.(map[string]any)
		if q["name"] != name {
			continue
		}
		ex := func(v any) string {
			m, _ := v.(map[string]any)
			s, _ := m["exact"].(string)
			return s
		}
		return ex(q["min"]) + " " + ex(q["max"])
	}
	return "no query " + name
}

func TestProbErrors(t *testing.T) {
	cs := connect(t, nil)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no queries", map[string]any{"spec": toggle}, "spec.wrap: no probability queries (declare one with `probability Name: eventually c`)"},
		{"spec error", map[string]any{"spec": "spec S\nvar x: bool\nprobability P: eventually y\n"}, "spec.wrap:3:27: undefined: y"},
		{"negative limit", map[string]any{"spec": flagSpec, "max_states": -1}, "max_states and timeout_seconds must not be negative"},
		{"bad level", map[string]any{"spec": flagSpec, "confidence": 1.5}, "confidence 1.5: want a level between 0 and 1, such as 0.95"},
		{"unknown only", map[string]any{"spec": flagSpec, "only": []string{"Nope"}}, ""},
		{"outside the roots", map[string]any{"path": "/etc/passwd"}, "/etc/passwd: outside the client's roots, where the server reads files"},
		{"schema: wrong type", map[string]any{"spec": flagSpec, "interval": "yes"}, `validating "arguments": validating root: validating /properties/interval: type: yes has type "string", want "boolean"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "prob", Arguments: tt.args})
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case !res.IsError:
				t.Fatalf("no tool error: %s", text(res))
			default:
				got = text(res)
			}
			if tt.want == "" {
				if !strings.Contains(got, "Nope") {
					t.Errorf("error %q does not name the query", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProbHostile: a prob call on hostile specs ends by its time limit
// (a step that computes with huge integers for hours) or at the server's
// memory budget (one step with 100,000 successors of 25 KB each), and
// the server answers the next call.
func TestProbHostile(t *testing.T) {
	cs := connectServer(t, Options{MemoryBudget: 200 << 20}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	query := map[string]string{"bigwork.wrap": "probability P: eventually a == 1\n", "arr2.wrap": "probability P: eventually a[0] == 1\n"}
	tests := []struct {
		file, want string
		error      bool
	}{
		{"bigwork.wrap", "prob: stopped before the end: timeout (timeout_seconds 1)", true},
		{"arr2.wrap", "incomplete: quant: memory budget exceeded", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			secs := 1.0
			if !tt.error {
				secs = 20 // the budget, not the time, stops it
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "prob", Arguments: map[string]any{"spec": hostile(t, tt.file) + query[tt.file], "timeout_seconds": secs}})
			el := time.Since(start)
			if err != nil {
				t.Fatalf("after %v: %v", el, err)
			}
			if el > time.Duration((secs+1)*float64(time.Second)) {
				t.Errorf("answered after %v, limit %vs", el, secs)
			}
			if res.IsError != tt.error || !strings.Contains(text(res), tt.want) {
				t.Errorf("error %v %q, want error %v with %q", res.IsError, text(res), tt.error, tt.want)
			}
		})
	}
	var out ProbOutput
	if res := call(t, cs, "prob", map[string]any{"spec": flagSpec}, &out); res.IsError || out.Verdict != "violated" {
		t.Fatalf("after the hostile calls: %s", text(res))
	}
}

// TestProbStopped: when the time limit stops interval iteration, prob
// answers the sound bounds reached, as the CLI prints them: verdict
// incomplete with the reason, the query marked stopped in the result
// (a random walk of 121 states whose value iteration crawls).
func TestProbStopped(t *testing.T) {
	cs := connectServer(t, Options{}, nil)
	var out ProbOutput
	start := time.Now()
	res := call(t, cs, "prob", map[string]any{"spec": hostile(t, "walk.wrap"), "interval": true, "timeout_seconds": 1}, &out)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("answered after %v, limit 1s", el)
	}
	if res.IsError || out.Verdict != "incomplete" || out.Reason != "timeout" {
		t.Fatalf("verdict %q reason %q (error %v): %s", out.Verdict, out.Reason, res.IsError, text(res))
	}
	qs, _ := out.Result["queries"].([]any)
	if len(qs) != 1 {
		t.Fatalf("queries %v", out.Result["queries"])
	}
	if q, _ := qs[0].(map[string]any); q["stopped"] != true {
		t.Errorf("the query is not marked stopped: %v", q)
	}
	if !strings.Contains(text(res), "incomplete: stopped (timeout) during interval iteration") {
		t.Errorf("text: %s", text(res))
	}
}

// TestProbStoppedIn: when the time limit stops the range over the
// confidence box (walkbox.wrap: the values come at once, the range
// crawls) or the sensitivity pass (walksens.wrap: the values and the
// range come quickly, one rate's pass crawls), prob answers what it
// computed, the query marked stopped there ("box", "sensitivity"),
// verdict incomplete with the reason, and says where it stopped; before,
// the call was an error (the box) or had no sensitivity option.
func TestProbStoppedIn(t *testing.T) {
	cs := connectServer(t, Options{}, nil)
	for _, tt := range []struct {
		where, spec string
		args        map[string]any
		want        string
	}{
		{"box", "walkbox.wrap", map[string]any{}, "incomplete: stopped (timeout) during the range over the confidence intervals of the counts"},
		{"sensitivity", "walksens.wrap", map[string]any{"sensitivity": true}, "incomplete: stopped (timeout) during the sensitivity pass"},
	} {
		t.Run(tt.where, func(t *testing.T) {
			args := map[string]any{"spec": hostile(t, tt.spec), "interval": true, "timeout_seconds": 1}
			maps.Copy(args, tt.args)
			var out ProbOutput
			res := call(t, cs, "prob", args, &out)
			if res.IsError || out.Verdict != "incomplete" || out.Reason != "timeout" {
				t.Fatalf("verdict %q reason %q (error %v): %s", out.Verdict, out.Reason, res.IsError, text(res))
			}
			qs, _ := out.Result["queries"].([]any)
			if len(qs) != 1 {
				t.Fatalf("queries %v", out.Result["queries"])
			}
			q, _ := qs[0].(map[string]any)
			if q["stopped"] != true || q["stopped_in"] != tt.where || q["max"] == nil || tt.where == "sensitivity" && q["box"] == nil {
				t.Errorf("the query is not marked stopped in %s with what it computed: %v", tt.where, q)
			}
			if !strings.Contains(text(res), tt.want) {
				t.Errorf("text: %s", text(res))
			}
		})
	}
}

// TestProbWitnessSensitivity: the prob tool's witness and sensitivity
// give what prob --witness --sensitivity --format json gives (the
// queries and expectations of the result equal those of report.QuantJSON
// on quant.Check with the same options), so the MCP answers "which
// answers lead there" and "measure what next" as the terminal does.
func TestProbWitnessSensitivity(t *testing.T) {
	cs := connect(t, nil)
	src, err := os.ReadFile("../examples/pipeline/rates.wrap")
	if err != nil {
		t.Fatal(err)
	}
	var out ProbOutput
	res := call(t, cs, "prob", map[string]any{"spec": string(src), "witness": true, "sensitivity": true}, &out)
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	_, m, err := Source{Spec: string(src)}.model(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	qres, err := quant.Check(context.Background(), m, quant.Options{Witness: true, Sensitivity: true})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := report.QuantJSON(&js, m, qres); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(js.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"queries", "expectations"} {
		if diff := cmp.Diff(want[k], out.Result[k]); diff != "" {
			t.Errorf("%s (-terminal +mcp):\n%s", k, diff)
		}
	}
	qs, _ := out.Result["queries"].([]any)
	for _, q := range qs {
		if q := q.(map[string]any); q["witness"] == nil || q["sensitivity"] == nil {
			t.Errorf("query %v without a witness or a sensitivity", q["name"])
		}
	}
}

// lineSpec has 2200 undecided states for its expected cost, past exact
// mode's 2000: each go costs 1 and moves on with probability 1/2, each
// hop costs nothing and moves nowhere that matters, so the least
// expected cost is 2 N = 2200, and a strategy that hops forever never
// gets there.
const lineSpec = `spec Line
const N = 1100
var x: 0..N = 0
var side: bool
agent coin(): bool
rate coin { true: 1/2; false: 1/2 }
action hop when x < N { side := not side }
action go when x < N {
  let ok = ask coin()
  x := if ok then x + 1 else x
}
terminal x == N
cost work { go: 1 }
expected Work: min work until x == N
`

// TestProbCostIntervalWitness: the prob tool's witness of an expected
// cost past exact mode (interval iteration): the strategy its bounds
// pick, with the bounds of its own expected cost (strategy_bounds,
// enclosing 2200), and the most probable path to the target under it,
// N steps of go; before, an expected cost from interval iteration had no
// witness.
func TestProbCostIntervalWitness(t *testing.T) {
	cs := connect(t, nil)
	var out ProbOutput
	res := call(t, cs, "prob", map[string]any{"spec": lineSpec, "witness": true}, &out)
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	es, _ := out.Result["expectations"].([]any)
	if len(es) != 1 {
		t.Fatalf("expectations %v", out.Result["expectations"])
	}
	e, _ := es[0].(map[string]any)
	min, _ := e["min"].(map[string]any)
	if min == nil || min["exact"] != nil || min["lower"] == nil {
		t.Fatalf("E_min %v, want bounds from interval iteration", e["min"])
	}
	w, _ := e["witness"].(map[string]any)
	wmin, _ := w["min"].(map[string]any)
	if wmin == nil {
		t.Fatalf("no witness of E_min: %v", e)
	}
	sb, _ := wmin["strategy_bounds"].(map[string]any)
	lo, _ := sb["lower"].(float64)
	hi, _ := sb["upper"].(float64)
	if !(lo <= 2200 && 2200 <= hi && hi-lo < 1e-3) {
		t.Errorf("strategy_bounds %v, want tight bounds around 2200", wmin["strategy_bounds"])
	}
	if tr, _ := wmin["trace"].([]any); len(tr) != 1101 {
		t.Errorf("a trace of %d states, want 1101", len(tr))
	}
	for _, row := range wmin["strategy"].([]any) {
		if a := row.(map[string]any)["action"]; a != "go" {
			t.Fatalf("the strategy takes %v on the path, want go", a)
		}
	}
}

package report_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// gamblerProb is bench/prism's gambler with bounds: Ruin's maximum 4/5
// breaks <= 1/2, Rich's minimum 1/5 keeps >= 1/10, Steps's maximum
// expected bets (18/5) break <= 3, and Flag's counts (3 of 9) keep <= 1/2
// at the point estimate 1/3 but not over their 95% interval.
const gamblerProb = `spec Gambler
type Mood = {bold, timid}
var money: 0..4 = 2
var flagged: bool
var checked: bool
agent coin(): bool
rate coin {
  true: 1/3
  false: 2/3
}
agent mood(): Mood
agent verifier(): bool
rate verifier { true: 3 of 9; false: 6 of 9 }
fn stake(m: Mood, x: 0..4): 0..4 = if m == bold and x <= 2 then x else if m == bold then 4 - x else 1
action bet when money > 0 and money < 4 {
  let m = ask mood()
  let heads = ask coin()
  money := if heads then money + stake(m, money) else money - stake(m, money)
}
action verify when not checked {
  flagged := ask verifier()
  checked := true
}
terminal money == 0 or money == 4
probability Rich: min eventually money == 4 bound >= 1/10
probability Ruin: max eventually money == 0 bound <= 1/2
probability Flag: max eventually flagged bound <= 1/2
probability Free: eventually money == 4
cost bets { bet: 1 }
expected Steps: max bets until (money == 0 or money == 4) bound <= 3
`

// TestQuantSARIF validates `prob --format sarif` against the official
// SARIF 2.1.0 schema and our subset, as check's SARIF is validated, and
// checks its results: one per bound that can be broken (level error, at
// the query's line and column) or is not decided (level warning), none
// for a bound kept or a query without one.
func TestQuantSARIF(t *testing.T) {
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	subset := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	tests := []struct {
		name string
		src  string
		want []string // ruleId level line:col message, in order
	}{
		{"violated and undecided", gamblerProb, []string{
			"Ruin error 26:1 Ruin: P_max(eventually money == 0) = 4/5 (0.800000): bound <= 1/2 violated",
			"Flag warning 27:1 Flag: P(eventually flagged) over the 95% confidence intervals of the counts in [0.074854, 0.700705]: bound <= 1/2 not decided by the counts",
			"Steps error 30:1 Steps: E_max(bets until (money == 0 or money == 4)) = 18/5 (3.600000): bound <= 3 violated",
		}},
		{"holds", "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\nprobability Six: eventually d == 6 bound <= 1/6\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile("g.wrap", []byte(tt.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := quant.Check(context.Background(), m, quant.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := report.QuantSARIF(&out, m, res, "v1.2.3"); err != nil {
				t.Fatal(err)
			}
			x, err := decodeJSON(out.Bytes())
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			for _, e := range official.validate(x) {
				t.Errorf("official schema: %s", e)
			}
			for _, e := range subset.validate(x) {
				t.Errorf("subset: %s", e)
			}
			run := x.(map[string]any)["runs"].([]any)[0].(map[string]any)
			var got []string
			for _, r := range run["results"].([]any) {
				r := r.(map[string]any)
				reg := r["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"].(map[string]any)
				got = append(got, fmt.Sprintf("%v %v %v:%v %v", r["ruleId"], r["level"], reg["startLine"], reg["startColumn"], r["message"].(map[string]any)["text"]))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s\n%s", diff, out.String())
			}
			wantVerdict := "holds"
			if tt.want != nil {
				wantVerdict = "violated"
			}
			if v := run["properties"].(map[string]any)["verdict"]; v != wantVerdict {
				t.Errorf("verdict %v, want %s", v, wantVerdict)
			}
			// The same result renders the same bytes: no time in the log.
			var again bytes.Buffer
			report.QuantSARIF(&again, m, res, "v1.2.3")
			res2, _ := quant.Check(context.Background(), m, quant.Options{})
			var third bytes.Buffer
			report.QuantSARIF(&third, m, res2, "v1.2.3")
			if !bytes.Equal(out.Bytes(), third.Bytes()) {
				t.Errorf("two runs give different SARIF:\n%s\n%s", out.String(), third.String())
			}
		})
	}
}

// TestQuantSARIFStopped validates the log of a computation stopped
// early: the rules of the bounds, no result, a notification.
func TestQuantSARIFStopped(t *testing.T) {
	m, err := spec.ParseFile("g.wrap", []byte(gamblerProb), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.QuantSARIFStopped(&out, m, "stopped at the timeout (2s)", ""); err != nil {
		t.Fatal(err)
	}
	run := validSARIFRun(t, out.Bytes())
	rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	var ids []string
	for _, r := range rules {
		ids = append(ids, r.(map[string]any)["id"].(string))
	}
	if diff := cmp.Diff([]string{"Rich", "Ruin", "Flag", "Steps"}, ids); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	inv := run["invocations"].([]any)[0].(map[string]any)
	if len(run["results"].([]any)) != 0 || inv["toolExecutionNotifications"] == nil {
		t.Errorf("results %v, invocation %v: want none and a notification", run["results"], inv)
	}
}

// TestQuantPartial renders a result that a timeout stopped during
// interval iteration, in every format: the SARIF log is valid, has the
// undecided bound as a warning, "complete": false and the reason; the
// JSON marks the query stopped and gives the reason; the text says
// "stopped by the limit".
func TestQuantPartial(t *testing.T) {
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\nprobability Six: max eventually d == 6 bound <= 1/2\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := &quant.Result{Stopped: context.DeadlineExceeded, Queries: []quant.QueryResult{{Query: m.Queries[0],
		MaxBounds: &quant.Interval{Lo: 0.125, Hi: 0.75}, Stopped: true, Unknown: true}}}
	var out bytes.Buffer
	if err := report.QuantSARIF(&out, m, res, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	run := validSARIFRun(t, out.Bytes())
	props := run["properties"].(map[string]any)
	if props["complete"] != false || props["reason"] != "timeout" || props["verdict"] != "unknown" {
		t.Errorf("properties %v: want complete false, reason timeout, verdict unknown", props)
	}
	results := run["results"].([]any)
	want := "Six: P_max(eventually d == 6) in [0.125, 0.75] (interval iteration, stopped by the limit): bound <= 1/2 not decided"
	if len(results) != 1 || results[0].(map[string]any)["message"].(map[string]any)["text"] != want {
		t.Errorf("results %v, want one: %s", results, want)
	}
	out.Reset()
	if err := report.QuantJSON(&out, m, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"verdict": "unknown"`, `"reason": "timeout"`, `"stopped": true`} {
		if !bytes.Contains(out.Bytes(), []byte(s)) {
			t.Errorf("JSON without %s:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := report.QuantText(&out, m, res); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(want)) {
		t.Errorf("text without %q:\n%s", want, out.String())
	}
}

// validSARIFRun validates the SARIF log b against the official schema
// and our subset and returns its run.
func validSARIFRun(t *testing.T, b []byte) map[string]any {
	t.Helper()
	official := loadSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	subset := loadSchema(t, "testdata/sarif-2.1.0-subset.json")
	x, err := decodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(official.validate(x), subset.validate(x)...) {
		t.Error(e)
	}
	return x.(map[string]any)["runs"].([]any)[0].(map[string]any)
}

// TestQuantCostBounds renders expected costs computed by interval
// iteration in every format: a bound the interval straddles is not
// decided (a SARIF warning), one it breaks is violated (an error), an
// upper end never certified is "infinity" in the text and absent from
// the JSON; and a query stopped in the range over the counts says so in
// the text and as "stopped_in" in the JSON. The SARIF log is valid.
func TestQuantCostBounds(t *testing.T) {
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\n" +
		"probability Six: max eventually d == 6 bound <= 1/2\ncost throws { throw: 1 }\n" +
		"expected Near: max throws until d > 0 bound <= 1\nexpected Over: max throws until d > 0 bound <= 1/2\nexpected Open: min throws until d > 0\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	res := &quant.Result{Stopped: context.DeadlineExceeded,
		Queries: []quant.QueryResult{{Query: m.Queries[0], Max: big.NewRat(1, 6), Stopped: true, StoppedIn: "box", Unknown: true}},
		Expectations: []quant.ExpectResult{
			{Expectation: m.Expectations[0], MaxBounds: &quant.Interval{Lo: 0.9999999, Hi: 1.0000001}, Unknown: true},
			{Expectation: m.Expectations[1], MaxBounds: &quant.Interval{Lo: 0.9999999, Hi: 1.0000001}, Violated: true},
			{Expectation: m.Expectations[2], MinBounds: &quant.Interval{Lo: 0.5, Hi: inf}},
		}}
	var out bytes.Buffer
	if err := report.QuantSARIF(&out, m, res, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	run := validSARIFRun(t, out.Bytes())
	var got []string
	for _, r := range run["results"].([]any) {
		r := r.(map[string]any)
		got = append(got, r["level"].(string)+" "+r["message"].(map[string]any)["text"].(string))
	}
	want := []string{
		"warning Six: P_max(eventually d == 6) = 1/6 (0.166667): bound <= 1/2 not decided",
		"warning Near: E_max(throws until d > 0) in [0.9999999, 1.0000001] (interval iteration): bound <= 1 not decided",
		"error Over: E_max(throws until d > 0) in [0.9999999, 1.0000001] (interval iteration): bound <= 1/2 violated",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SARIF results (-want +got):\n%s", diff)
	}
	out.Reset()
	if err := report.QuantText(&out, m, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{want[1][len("warning "):], want[2][len("error "):],
		"Open: E_min(throws until d > 0) in [0.5, infinity] (interval iteration)",
		"Six: the range over the confidence intervals of the counts was stopped by the limit"} {
		if !bytes.Contains(out.Bytes(), []byte(s)) {
			t.Errorf("text without %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := report.QuantJSON(&out, m, res); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"stopped_in": "box"`, `"lower": 0.9999999`, `"upper": 1.0000001`, `"min": {
        "lower": 0.5
      }`} {
		if !bytes.Contains(out.Bytes(), []byte(s)) {
			t.Errorf("JSON without %s:\n%s", s, out.String())
		}
	}
}

// TestQuantIntervalWitness renders the witness of a value computed by
// interval iteration: the text names the strategy its bounds picked with
// the bounds of its own probability (not "the strategy that attains
// it"), and the JSON adds them as strategy_bounds; an exact value's
// witness has neither.
func TestQuantIntervalWitness(t *testing.T) {
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\n" +
		"probability Six: max eventually d == 6\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, interval := range []bool{false, true} {
		res, err := quant.Check(context.Background(), m, quant.Options{Witness: true, Interval: interval})
		if err != nil {
			t.Fatal(err)
		}
		text, js := quantTextJSON(t, m, res)
		picked := strings.Contains(text.String(), "witness of Six's P_max: the most probable path to the event under the strategy its bounds pick (whose own probability is in [0.16666666666666")
		attains := strings.Contains(text.String(), "witness of Six's P_max: the most probable path to the event under the strategy that attains it, probability 1/6")
		bounds := strings.Contains(js.String(), `"strategy_bounds": {`)
		if picked != interval || attains == interval || bounds != interval {
			t.Errorf("interval=%v: text\n%s\njson\n%s", interval, text.String(), js.String())
		}
	}
}

// quantTextJSON returns res's text and JSON reports.
func quantTextJSON(t *testing.T, m *spec.Model, res *quant.Result) (text, js *bytes.Buffer) {
	t.Helper()
	text, js = new(bytes.Buffer), new(bytes.Buffer)
	if err := report.QuantText(text, m, res); err != nil {
		t.Fatal(err)
	}
	if err := report.QuantJSON(js, m, res); err != nil {
		t.Fatal(err)
	}
	return text, js
}

// TestQuantCostIntervalWitness renders the witness of an expected cost
// computed by interval iteration: the text names the strategy its bounds
// picked with the bounds of its own expected cost, and the JSON adds
// them as strategy_bounds, as for a probability; an upper end never
// certified is "infinity" in the text and absent from the JSON (a
// float64 infinity has no JSON: before, the JSON failed).
func TestQuantCostIntervalWitness(t *testing.T) {
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d < 6 { d := ask roll() }\nterminal d == 6\n" +
		"cost throws { throw: 1 }\nexpected Throws: max throws until d == 6\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Witness: true, Interval: true})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Expectations[0].MaxWitness
	if w == nil || w.Bounds == nil || !(w.Bounds.Lo <= 6 && 6 <= w.Bounds.Hi) {
		t.Fatalf("witness %+v, want one with bounds around 6", w)
	}
	for _, hi := range []float64{w.Bounds.Hi, math.Inf(1)} {
		w.Bounds.Hi = hi
		text, js := quantTextJSON(t, m, res)
		wantText := "witness of Throws's E_max: the most probable path to the target under the strategy its bounds pick (whose own expected cost is in [" + strconv.FormatFloat(w.Bounds.Lo, 'g', -1, 64) + ", "
		wantJSON := `"strategy_bounds": {
            "lower": ` + strconv.FormatFloat(w.Bounds.Lo, 'g', -1, 64)
		if math.IsInf(hi, 1) {
			wantText += "infinity]), probability 1/6"
			wantJSON += "\n          }"
		} else {
			wantText += strconv.FormatFloat(hi, 'g', -1, 64) + "]), probability 1/6"
			wantJSON += `,
            "upper": ` + strconv.FormatFloat(hi, 'g', -1, 64)
		}
		if !strings.Contains(text.String(), wantText) || !strings.Contains(js.String(), wantJSON) {
			t.Errorf("upper %g: text\n%s\njson\n%s\nwant %q and %q", hi, text.String(), js.String(), wantText, wantJSON)
		}
	}
}

// TestQuantBoxEndNotReached renders ranges over the counts of which a
// limit stopped one end before it was reached: the text says which end
// was not reached and claims nothing of it (`at most 0.300000 (the least
// not reached: stopped by the limit)`), the JSON has that end null with
// "stopped_in": "box", and SARIF's warning for a bound the reached end
// leaves undecided gives that end alone as its value; a bound on the end
// not reached is "not decided" on the value's line. Before, such a box
// was dropped whole.
func TestQuantBoxEndNotReached(t *testing.T) {
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\naction throw when d == 0 { d := ask roll() }\nterminal d > 0\n" +
		"probability Six: max eventually d == 6 bound <= 1/5\ncost throws { throw: 1 }\n" +
		"expected Many: max throws until d > 0 bound <= 2\nexpected Few: min throws until d > 0 bound >= 1/2\n"
	m, err := spec.ParseFile("g.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	level := big.NewRat(19, 20)
	res := &quant.Result{Stopped: context.DeadlineExceeded,
		Queries: []quant.QueryResult{{Query: m.Queries[0], Max: big.NewRat(1, 6), Box: &quant.Box{Hi: big.NewRat(3, 10), Level: level},
			Stopped: true, StoppedIn: "box", Unknown: true, BoxBroken: true}},
		Expectations: []quant.ExpectResult{
			{Expectation: m.Expectations[0], Max: big.NewRat(1, 1), Box: &quant.Box{HiBounds: &quant.Interval{Lo: 1.5, Hi: 2.5}, Level: level},
				Stopped: true, StoppedIn: "box", Unknown: true, BoxBroken: true},
			{Expectation: m.Expectations[1], Min: big.NewRat(1, 1), Box: &quant.Box{Hi: big.NewRat(1, 1), Level: level},
				Stopped: true, StoppedIn: "box", Unknown: true},
		}}
	text, js := quantTextJSON(t, m, res)
	for _, s := range []string{
		"Six: P(eventually d == 6) over the 95% confidence intervals of the counts at most 0.300000 (the least not reached: stopped by the limit): bound <= 1/5 not decided by the counts\n",
		"Many: E(throws until d > 0) over the 95% confidence intervals of the counts at most 2.5 (the least not reached: stopped by the limit): bound <= 2 not decided by the counts\n",
		"Few: E_min(throws until d > 0) = 1: bound >= 1/2 not decided\n",
		"Few: E(throws until d > 0) over the 95% confidence intervals of the counts at most 1 (the least not reached: stopped by the limit): bound >= 1/2 not decided by the counts (the least not reached)\n",
		"Few: the range over the confidence intervals of the counts was stopped by the limit",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text without %q:\n%s", s, text.String())
		}
	}
	for _, s := range []string{`"stopped_in": "box"`, `"box": {
        "level": "19/20",
        "min": null,
        "max": {
          "exact": "3/10",`, `"min": null,
        "max": {
          "float": 2,
          "lower": 1.5,
          "upper": 2.5
        }`} {
		if !strings.Contains(js.String(), s) {
			t.Errorf("JSON without %s:\n%s", s, js.String())
		}
	}
	var got []string
	for _, f := range report.QuantFindings(res) {
		got = append(got, f.Level+" "+f.Value+" "+f.Msg)
	}
	want := []string{
		"warning <= 0.300000 Six: P(eventually d == 6) over the 95% confidence intervals of the counts at most 0.300000 (the least not reached: stopped by the limit): bound <= 1/5 not decided by the counts",
		"warning <= 2.5 Many: E(throws until d > 0) over the 95% confidence intervals of the counts at most 2.5 (the least not reached: stopped by the limit): bound <= 2 not decided by the counts",
		"warning 1 Few: E_min(throws until d > 0) = 1: bound >= 1/2 not decided",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := report.QuantSARIF(&out, m, res, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	validSARIFRun(t, out.Bytes())
}

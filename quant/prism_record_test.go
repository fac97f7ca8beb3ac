package quant_test

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
)

// recordingPath is the recording of PRISM's answers on the peer models,
// which TestPRISMRecorded compares wrapcheck's values with where PRISM
// cannot run (CI: PRISM is neither in Debian nor in the repository).
const recordingPath = "../bench/prism/results.json"

// recording is what PRISM answered, run by run: one run per model and
// engine, the properties of the peers table in its order.
type recording struct {
	// Version is PRISM's, as `prism -version` prints it.
	Version string `json:"prism_version"`
	// Note says how the file is made.
	Note string     `json:"note"`
	Runs []prismRun `json:"runs"`
}

// prismRun is one PRISM command: prism MODEL PROPS ENGINE, with PROPS
// the file of Properties, one a line.
type prismRun struct {
	Model      string   `json:"model"`
	Engine     string   `json:"engine"`
	Command    string   `json:"command"`
	Properties []string `json:"properties"`
	// Results are PRISM's answers, in the order of Properties: an exact
	// fraction under -exact, a decimal under -explicit.
	Results []string `json:"results"`
}

var prismResult = regexp.MustCompile(`(?m)^Result: (\S+)`)

// prismGroups groups the peers by the PRISM command that computes them:
// model and engine (-exact, or -explicit for bounded queries), in the
// order of the table.
func prismGroups() []prismRun {
	var out []prismRun
	index := map[string]int{}
	for _, p := range peers {
		engine := "-exact"
		if p.bounded {
			engine = "-explicit"
		}
		key := p.pm + " " + engine
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, prismRun{Model: p.pm + ".pm", Engine: engine,
				Command: "prism " + p.pm + ".pm " + p.pm + engine + ".props " + engine})
		}
		out[i].Properties = append(out[i].Properties, p.prop)
	}
	return out
}

// runPRISM runs PRISM on every group and returns its answers.
func runPRISM(t *testing.T, prism string) *recording {
	t.Helper()
	v, err := exec.Command(prism, "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("prism -version: %v\n%s", err, v)
	}
	rec := &recording{Version: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(v)), "PRISM version")),
		Note: "PRISM's answers on the peer models of bench/prism, written by bench/prism/record.sh (WRAPCHECK_UPDATE=1 go test -run TestPRISM ./quant/); each command's PROPS file holds its properties, one a line"}
	dir := t.TempDir()
	for _, r := range prismGroups() {
		propsFile := filepath.Join(dir, strings.Fields(r.Command)[2])
		if err := os.WriteFile(propsFile, []byte(strings.Join(r.Properties, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		model := filepath.Join("..", "bench", "prism", r.Model)
		out, err := exec.Command(prism, model, propsFile, r.Engine).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", r.Command, err, out)
		}
		for _, m := range prismResult.FindAllStringSubmatch(string(out), -1) {
			r.Results = append(r.Results, m[1])
		}
		if len(r.Results) != len(r.Properties) {
			t.Fatalf("%s: %d results for %d properties\n%s", r.Command, len(r.Results), len(r.Properties), out)
		}
		rec.Runs = append(rec.Runs, r)
	}
	return rec
}

// compareRun compares PRISM's answers in r with wrapcheck's values in
// res: equal under -exact, within 1e-12 under -explicit.
func compareRun(t *testing.T, res map[string]*quant.Result, r prismRun) {
	t.Helper()
	i := 0
	for _, p := range peers {
		if p.pm+".pm" != r.Model || p.bounded != (r.Engine == "-explicit") {
			continue
		}
		if i >= len(r.Results) || r.Properties[i] != p.prop {
			t.Errorf("%s: no answer for %s (%s %s)", r.Command, p.prop, p.wrap, p.query)
			return
		}
		got := r.Results[i]
		i++
		ours := value(t, res[p.wrap], p)
		if !p.bounded {
			theirs, ok := new(big.Rat).SetString(got)
			if !ok || theirs.Cmp(ours) != 0 {
				t.Errorf("%s %s (max %v): wrapcheck %s, PRISM %s (%s)", p.wrap, p.query, p.max, ours.RatString(), got, p.prop)
			}
			continue
		}
		theirs, err := strconv.ParseFloat(got, 64)
		f, _ := ours.Float64()
		if err != nil || f-theirs > 1e-12 || theirs-f > 1e-12 {
			t.Errorf("%s %s (max %v): wrapcheck %s (%g), PRISM %s (%s)", p.wrap, p.query, p.max, ours.RatString(), f, got, p.prop)
		}
	}
}

func readRecording(t *testing.T) *recording {
	t.Helper()
	b, err := os.ReadFile(recordingPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec recording
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("%s: %v", recordingPath, err)
	}
	return &rec
}

func writeRecording(t *testing.T, rec *recording) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordingPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPRISMRecorded compares wrapcheck's value of every peer model's
// query with PRISM's recorded answer (bench/prism/results.json), without
// PRISM: equal to -exact's fraction, within 1e-12 of -explicit's decimal
// for bounded queries; and the bounds of interval iteration (--interval)
// must enclose -exact's fraction. The recording must hold every query of the peers
// table, with the same commands: a peer added without recording PRISM's
// answer fails here. TestPRISM keeps the recording equal to PRISM's
// answers where PRISM runs.
func TestPRISMRecorded(t *testing.T) {
	rec := readRecording(t)
	if rec.Version == "" {
		t.Errorf("%s names no PRISM version", recordingPath)
	}
	want := prismGroups()
	if len(rec.Runs) != len(want) {
		t.Fatalf("%s has %d runs, the peers table %d: record again (bench/prism/record.sh)", recordingPath, len(rec.Runs), len(want))
	}
	res := results(t)
	n := 0
	for i, r := range rec.Runs {
		if r.Command != want[i].Command || strings.Join(r.Properties, "\n") != strings.Join(want[i].Properties, "\n") {
			t.Errorf("run %d: recorded %q with %q, the peers table asks %q with %q: record again (bench/prism/record.sh)", i, r.Command, r.Properties, want[i].Command, want[i].Properties)
			continue
		}
		compareRun(t, res, r)
		n += len(r.Results)
	}
	if n != len(peers) {
		t.Errorf("%d recorded answers for %d peers", n, len(peers))
	}
	// The sound engine: interval iteration's bounds enclose PRISM's
	// exact answers.
	iv := resultsWith(t, quant.Options{Interval: true})
	enclosed := 0
	for _, r := range rec.Runs {
		if r.Engine != "-exact" {
			continue
		}
		i := 0
		for _, p := range peers {
			if p.pm+".pm" != r.Model || p.bounded {
				continue
			}
			exact, _ := new(big.Rat).SetString(r.Results[i])
			i++
			b := bounds(iv[p.wrap], p)
			if b == nil {
				t.Errorf("%s %s (max %v): no bounds from interval iteration", p.wrap, p.query, p.max)
				continue
			}
			lo, hi := new(big.Rat).SetFloat64(b.Lo), new(big.Rat).SetFloat64(b.Hi)
			if exact == nil || exact.Cmp(lo) < 0 || exact.Cmp(hi) > 0 {
				t.Errorf("%s %s (max %v): interval iteration [%g, %g] misses PRISM's %s", p.wrap, p.query, p.max, b.Lo, b.Hi, r.Results[i-1])
			}
			enclosed++
		}
	}
	t.Logf("%d exact answers within interval iteration's bounds", enclosed)
	if enclosed < 36 {
		t.Errorf("only %d queries computed by interval iteration", enclosed)
	}
}

// bounds returns the interval iteration's bounds of p's query or
// expected cost in res, nil for a value computed exactly.
func bounds(res *quant.Result, p peer) *quant.Interval {
	for _, r := range res.Queries {
		if r.Query.Name == p.query {
			if p.max {
				return r.MaxBounds
			}
			return r.MinBounds
		}
	}
	for _, r := range res.Expectations {
		if r.Expectation.Name == p.query {
			if p.max {
				return r.MaxBounds
			}
			return r.MinBounds
		}
	}
	return nil
}

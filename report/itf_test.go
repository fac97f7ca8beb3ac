package report_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
)

// itfCases renders the ITF trace of every case with a violation (the
// renderers' cases: an invariant, agent answers, a lasso, a deadlock, a
// runtime error, a past-time monitor, a stuttering lasso, --continue, a
// hostile message), keyed by case name; the cases without a violation
// render nothing.
func itfCases(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for i, c := range cases {
		r := checkCase(t, i)
		b := render(t, func(w *bytes.Buffer) error { return report.ITF(w, r.m, r.res) })
		if r.res.Violation == nil {
			if len(b) != 0 {
				t.Errorf("%s: no violation, but ITF wrote %q", c.name, b)
			}
			continue
		}
		out[c.name] = b
	}
	return out
}

// TestITFSchema validates the ITF traces against docs/itf-schema.json and
// checks what the schema cannot: every integer is a #bigint (no JSON
// number anywhere but in #meta), every state has every variable, the
// first the constants, the loop index closes the lasso.
func TestITFSchema(t *testing.T) {
	s := loadSchema(t, "../docs/itf-schema.json")
	for name, doc := range itfCases(t) {
		t.Run(name, func(t *testing.T) {
			x, err := decodeJSON(doc)
			if err != nil {
				t.Fatalf("not one JSON value: %v\n%s", err, doc)
			}
			for _, e := range s.validate(x) {
				t.Error(e)
			}
			tr := x.(map[string]any)
			vars := tr["vars"].([]any)
			params := tr["params"].([]any)
			states := tr["states"].([]any)
			for i, st := range states {
				obj := st.(map[string]any)
				want := len(vars) + 1
				if i == 0 {
					want += len(params)
				}
				if len(obj) != want {
					t.Errorf("state %d has %d members, want %d (vars, #meta, params in the first)", i, len(obj), want)
				}
				for _, v := range vars {
					if _, ok := obj[v.(string)]; !ok {
						t.Errorf("state %d has no %s", i, v)
					}
				}
				for k, v := range obj {
					if k != "#meta" && hasNumber(v) {
						t.Errorf("state %d: %s holds a JSON number: %v", i, k, v)
					}
				}
			}
			if loop, ok := tr["loop"]; ok {
				n, _ := loop.(json.Number).Int64()
				a, b := states[n].(map[string]any), states[len(states)-1].(map[string]any)
				for _, v := range vars {
					if !reflect.DeepEqual(a[v.(string)], b[v.(string)]) {
						t.Errorf("loop %d: %s differs from the last state's", n, v)
					}
				}
			}
		})
	}
}

func hasNumber(x any) bool {
	switch x := x.(type) {
	case json.Number:
		return true
	case []any:
		for _, el := range x {
			if hasNumber(el) {
				return true
			}
		}
	case map[string]any:
		for _, el := range x {
			if hasNumber(el) {
				return true
			}
		}
	}
	return false
}

// TestITFValues pins the encoding of each kind of value, on the agents
// case (pipeline/pass_with_issues.wrap: arrays over a range, records,
// sets, enums, booleans, integers, a constant) and the lasso case.
func TestITFValues(t *testing.T) {
	docs := itfCases(t)
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"agents", []string{
			`"params": ["STEPS"],`,
			`{"#meta": {"index": 0}, "STEPS": {"#bigint": "2"}, "phase": "planning", "brief": {"#set": []}, "step": {"#bigint": "0"}`,
			`"rel": {"#map": [[{"#bigint": "0"}, "unreleased"], [{"#bigint": "1"}, "unreleased"]]}`,
			`{"#meta": {"index": 1, "action": "wrapper.plan", "asked": [{"agent": "planner", "answer": {"#set": []}}]}`,
			`{"agent": "verifier", "answer": {"status": "answered", "pass": true, "issues": true}}`,
			`"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html", "source": "pipeline/pass_with_issues.wrap", "spec": "PipelinePassWithIssues", "violation": {"kind": "invariant", "name": "ReleasedOnWellFormedVerdict"`,
		}},
		{"lasso", []string{`"loop": `}},
		{"past-stutter", []string{`"loop": 2`}},
	} {
		doc := string(docs[tt.name])
		for _, w := range tt.want {
			if !strings.Contains(doc, w) {
				t.Errorf("%s: no %s in\n%s", tt.name, w, doc)
			}
		}
	}
}

// TestITFSimulation: simulate's shortest violation renders as ITF with
// its walk and seed in #meta; a simulation without one renders nothing.
func TestITFSimulation(t *testing.T) {
	s := loadSchema(t, "../docs/itf-schema.json")
	for _, tt := range []struct {
		path string
		want bool
	}{{"approval/toctou.wrap", true}, {"classic/peterson.wrap", false}} {
		src, err := os.ReadFile("../examples/" + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(tt.path, src, spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := simulate.Run(context.Background(), m, simulate.Options{Walks: 50, Depth: 10, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		b := render(t, func(w *bytes.Buffer) error { return report.ITFSimulation(w, m, res) })
		if !tt.want {
			if len(b) != 0 || res.Violation != nil {
				t.Errorf("%s: want no trace, got %q", tt.path, b)
			}
			continue
		}
		x, err := decodeJSON(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.path, err, b)
		}
		for _, e := range s.validate(x) {
			t.Error(e)
		}
		if !bytes.Contains(b, []byte(`"walk": `)) || !bytes.Contains(b, []byte(`"seed": 1`)) {
			t.Errorf("%s: no walk and seed in #meta:\n%s", tt.path, b)
		}
	}
}

// TestITFQuint reads the ITF traces with a real consumer, Quint's ITF
// reader (the npm package @informalsystems/quint, pinned in
// testdata/itf-reader): every trace is read, Quint's writer gives back
// the same states, and Quint reads the values as the spec means them
// (enums as strings, integers as integers, sets, records and maps). It
// needs node, npm and the npm registry (or testdata/itf-reader's
// node_modules, which .ci/run installs); it skips without them, and fails
// when CI=true.
func TestITFQuint(t *testing.T) {
	ci := testenv.IsCI()
	need := func(tool string) string {
		return testenv.Tool(t, tool, "install Node.js and npm to read ITF with Quint")
	}
	node := need("node")
	dir, err := filepath.Abs(filepath.Join("testdata", "itf-reader"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@informalsystems", "quint", "package.json")); err != nil {
		if testing.Short() && !ci {
			t.Skip("-short: reading ITF with Quint needs `npm ci` in report/testdata/itf-reader")
		}
		npm := need("npm")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			if ci {
				t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
			}
			t.Skipf("npm ci in %s failed (no npm registry?): %v\n%s", dir, err, out)
		}
	}
	docs := itfCases(t)
	tmp := t.TempDir()
	args := []string{filepath.Join(dir, "read.js")}
	files := map[string]string{}
	for name, doc := range docs {
		f := filepath.Join(tmp, strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r == '-' {
				return r
			}
			return '_'
		}, name)+".itf.json")
		if err := os.WriteFile(f, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		files[f] = name
		args = append(args, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.js: %v\n%s", err, stderr.Bytes())
	}
	read := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var got struct {
			File      string
			Vars      []string
			States    []string
			Roundtrip []map[string]any
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		name := files[got.File]
		read[name] = true
		var orig struct {
			Vars   []string
			States []map[string]any
		}
		if err := json.Unmarshal(docs[name], &orig); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(orig.Vars, got.Vars); diff != "" {
			t.Errorf("%s: vars as Quint reads them (-want +got):\n%s", name, diff)
		}
		if len(got.Roundtrip) != len(orig.States) || len(got.States) != len(orig.States) {
			t.Fatalf("%s: Quint read %d states, want %d", name, len(got.Roundtrip), len(orig.States))
		}
		for i := range orig.States {
			delete(orig.States[i], "#meta")
			delete(got.Roundtrip[i], "#meta")
			if diff := cmp.Diff(orig.States[i], got.Roundtrip[i]); diff != "" {
				t.Errorf("%s: state %d read and written back by Quint (-want +got):\n%s", name, i, diff)
			}
		}
		if name == "sequence" {
			// a sequence is a list: Quint's List, as TLA+'s Seq
			last := got.States[len(got.States)-1]
			for _, w := range []string{`"q", List("b", "b")`, `"s", List("a", "a")`, `"qs", Map(Tup(0, List("b", "b")), Tup(1, List()))`} {
				if !strings.Contains(last, w) {
					t.Errorf("sequence: Quint reads the last state as %s, without %s", last, w)
				}
			}
		}
		if name == "agents" {
			for _, w := range []string{`Rec("STEPS", 2, "phase", "planning", "brief", Set(), "step", 0,`, `"rel", Map(Tup(0, "unreleased"), Tup(1, "unreleased"))`, `Tup(0, Rec("status", "answered", "pass", false, "issues", false))`} {
				if !strings.Contains(got.States[0], w) {
					t.Errorf("agents: Quint reads the first state as %s, without %s", got.States[0], w)
				}
			}
		}
	}
	for name := range docs {
		if !read[name] {
			t.Errorf("%s: Quint's reader gave no answer", name)
		}
	}
	if len(docs) == 0 {
		t.Fatal("no trace to read")
	}
}

// TestITFSchemaRejects: the schema refuses what ITF is not: a JSON
// number, a malformed tagged value, a state without its object, a member
// the format does not have.
func TestITFSchemaRejects(t *testing.T) {
	s := loadSchema(t, "../docs/itf-schema.json")
	for _, doc := range []string{
		`{"vars": ["x"], "states": [{"x": 1}]}`,
		`{"vars": ["x"], "states": [{"x": {"#bigint": 1}}]}`,
		`{"vars": ["x"], "states": [{"x": {"#bigint": "1.5"}}]}`,
		`{"vars": ["x"], "states": [{"x": {"#set": "a"}}]}`,
		`{"vars": ["x"], "states": [{"x": {"#map": [["a"]]}}]}`,
		`{"vars": ["x"], "states": [{"x": {"#sett": []}}]}`,
		`{"vars": ["x"], "states": [{"x": null}]}`,
		`{"vars": ["x"], "states": [[]]}`,
		`{"vars": ["x"], "states": [], "loop": -1}`,
		`{"vars": ["x"], "states": [], "trace": []}`,
		`{"states": []}`,
	} {
		x, err := decodeJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.validate(x)) == 0 {
			t.Errorf("the schema accepts %s", doc)
		}
	}
}

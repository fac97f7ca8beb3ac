package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// needTool returns the path of name, skipping the test when it is absent
// (failing under CI=true, where .ci/run installs it).
func needTool(t *testing.T, name string) string {
	t.Helper()
	return testenv.Tool(t, name, "install "+name)
}

// buildWasm builds the checker for the browser into dir and returns the
// paths of the .wasm and of Go's wasm_exec.js.
func buildWasm(t *testing.T, dir string) (wasm, wasmExec string) {
	t.Helper()
	wasm = filepath.Join(dir, "wrapcheck.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-o", wasm, "../wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build GOOS=js GOARCH=wasm: %v\n%s", err, out)
	}
	return wasm, filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js")
}

// exampleCase is one line of examples/EXPECTED.tsv.
type exampleCase struct {
	path    string
	defines map[string]int64
}

func exampleCases(t *testing.T) []exampleCase {
	t.Helper()
	b, err := os.ReadFile("../../examples/EXPECTED.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var cases []exampleCase
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if strings.HasPrefix(line, "#") || len(f) < 3 || f[2] != "-" {
			continue // --only lines check one property: the page checks all
		}
		c := exampleCase{path: f[0]}
		if f[1] != "-" {
			c.defines = map[string]int64{}
			for _, d := range strings.Fields(f[1]) {
				k, v, _ := strings.Cut(d, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("EXPECTED.tsv: %s: %v", d, err)
				}
				c.defines[k] = n
			}
		}
		cases = append(cases, c)
	}
	if len(cases) < 20 {
		t.Fatalf("EXPECTED.tsv gave %d cases, want at least 20", len(cases))
	}
	return cases
}

// comparable drops what differs between any two runs (the time, the
// worker count) from a JSON report.
func comparable(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v in %s", err, raw)
	}
	if st, ok := doc["stats"].(map[string]any); ok {
		delete(st, "seconds")
		delete(st, "workers")
	}
	return doc
}

// TestWasmMatchesNative runs every example through the WebAssembly build
// (under Node.js) and natively (verify.Run with every core, rendered by
// report.JSON), and wants the same reports: verdicts, traces, lassos,
// counts and coverage; and, for a rejected spec, the same errors. It
// also compares fmt's output and the state graph's DOT with the native
// engine's.
func TestWasmMatchesNative(t *testing.T) {
	node := needTool(t, "node")
	if testenv.Short(t) {
		t.Skip("-short: skipping the WebAssembly build")
	}
	wasm, wasmExec := buildWasm(t, t.TempDir())
	cases := exampleCases(t)
	var reqs []Request
	for _, c := range cases {
		src, err := os.ReadFile(filepath.Join("../../examples", c.path))
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, Request{Op: "check", Name: c.path, Source: string(src), Defines: c.defines, MaxStates: 1 << 40, TimeoutMS: 600000})
	}
	// then fmt and the state graph of each example, compared with the
	// native engine's
	n := len(reqs)
	for _, r := range reqs[:n] {
		reqs = append(reqs, Request{Op: "fmt", Name: r.Name, Source: r.Source}, Request{Op: "graph", Name: r.Name, Source: r.Source, Defines: r.Defines})
	}
	in, _ := json.Marshal(reqs)
	cmd := exec.Command(node, "../node-run.mjs", wasmExec, wasm)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var got []Response
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node's answer: %v", err)
	}
	if len(got) != len(reqs) || len(reqs) != 3*len(cases) {
		t.Fatalf("node answered %d requests, want %d", len(got), len(reqs))
	}
	for i := n; i < len(reqs); i++ {
		want := Run(context.Background(), reqs[i], nil)
		if diff := cmp.Diff(want.Formatted+want.DOT, got[i].Formatted+got[i].DOT); diff != "" || want.Truncated != got[i].Truncated {
			t.Errorf("%s %s (-native +wasm):\n%s", reqs[i].Op, reqs[i].Name, diff)
		}
		if want.Formatted+want.DOT == "" && len(want.Errors) == 0 {
			t.Errorf("%s %s: empty answer", reqs[i].Op, reqs[i].Name)
		}
	}
	violated, probs := 0, 0
	for i, c := range cases {
		name := c.path + " " + fmtDefines(c.defines)
		m, err := spec.ParseFile(c.path, []byte(reqs[i].Source), spec.Options{Defines: c.defines})
		if err != nil {
			var want []string
			for _, d := range report.Diagnostics(err) {
				want = append(want, d.String())
			}
			var gotErrs []string
			for _, d := range got[i].Errors {
				gotErrs = append(gotErrs, d.Text)
			}
			if diff := cmp.Diff(want, gotErrs); diff != "" {
				t.Errorf("%s: errors (-native +wasm):\n%s", name, diff)
			}
			continue
		}
		res, err := verify.Run(context.Background(), m, verify.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b bytes.Buffer
		if err := report.JSON(&b, m, res); err != nil {
			t.Fatal(err)
		}
		if len(got[i].Report) == 0 {
			t.Errorf("%s: the wasm gave no report: %+v", name, got[i].Errors)
			continue
		}
		want, gotDoc := comparable(t, b.Bytes()), comparable(t, got[i].Report)
		delete(gotDoc, "warnings") // the page's report adds vet's warnings
		delete(want, "warnings")
		if diff := cmp.Diff(want, gotDoc); diff != "" {
			t.Errorf("%s: report (-native +wasm):\n%s", name, diff)
		}
		if want["verdict"] == "violated" {
			violated++
		}
		if len(m.Queries)+len(m.Expectations) > 0 {
			// the probabilities: the same values as `wrapcheck prob`
			// computes natively
			probs++
			res, err := quant.Check(context.Background(), m, quant.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b.Reset()
			if err := report.QuantJSON(&b, m, res); err != nil {
				t.Fatal(err)
			}
			if len(got[i].Prob) == 0 {
				t.Errorf("%s: the wasm gave no probabilities: %s", name, got[i].ProbError)
				continue
			}
			if diff := cmp.Diff(comparable(t, b.Bytes()), comparable(t, got[i].Prob)); diff != "" {
				t.Errorf("%s: probabilities (-native +wasm):\n%s", name, diff)
			}
		}
	}
	if violated < 10 {
		t.Errorf("only %d examples were violated: the comparison of traces is too weak", violated)
	}
	if probs == 0 {
		t.Errorf("no example has probability queries: the panel's values are not compared")
	}
}

func fmtDefines(d map[string]int64) string {
	var parts []string
	for k, v := range d {
		parts = append(parts, k+"="+strconv.FormatInt(v, 10))
	}
	return strings.Join(parts, " ")
}

// Package examples holds the example specs and the tests that keep their
// results: a golden text result for every spec, the verdicts of
// EXPECTED.tsv and the exact peer counts of ../testdata/COUNTS*.tsv.
package examples

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// specs returns every example spec, as paths relative to this directory.
func specs(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("*/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no examples found")
	}
	return paths
}

// check parses and checks one example the way `wrapcheck check` does.
func check(path string, defines map[string]int64, opts verify.Options) (*spec.Model, *verdict.Result, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := spec.ParseFile(filepath.ToSlash(path), src, spec.Options{Defines: defines})
	if err != nil {
		return nil, nil, err
	}
	res, err := verify.Run(context.Background(), m, opts)
	return m, res, err
}

// TestGolden renders the result of every example (text, as people see it)
// and compares it with <name>.golden beside the spec. A missing golden
// fails. Timings are zeroed; the workers=1 and workers=4 results must be
// the same.
func TestGolden(t *testing.T) {
	for _, path := range specs(t) {
		t.Run(strings.TrimSuffix(path, ".wrap"), func(t *testing.T) {
			var got bytes.Buffer
			m, res, err := check(path, nil, verify.Options{Workers: 1})
			if err != nil {
				got.WriteString(err.Error() + "\n")
			} else {
				_, res4, err := check(path, nil, verify.Options{Workers: 4})
				if err != nil {
					t.Fatal(err)
				}
				normalise(res)
				normalise(res4)
				if diff := cmp.Diff(res, res4); diff != "" {
					t.Errorf("workers=1 and workers=4 differ (-1 +4):\n%s", diff)
				}
				if err := report.Text(&got, m, res); err != nil {
					t.Fatal(err)
				}
				// Timings and the worker count are not part of the result.
				text := strings.Replace(got.String(), ", 0.000 s, 0 workers", "", 1)
				got.Reset()
				got.WriteString(text)
			}
			golden.Check(t, strings.TrimSuffix(path, ".wrap")+".golden", got.Bytes())
		})
	}
}

// TestEveryExampleHasGolden fails on a golden without its spec.
func TestEveryGoldenHasSpec(t *testing.T) {
	goldens, _ := filepath.Glob("*/*.golden")
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + ".wrap"); err != nil {
			t.Errorf("%s has no spec", g)
		}
	}
}

func normalise(res *verdict.Result) {
	res.Stats.Seconds = 0
	res.Stats.PropertySeconds = 0
	res.Stats.Workers = 0
	res.Stats.PeakHeapBytes = 0
	res.Stats.BytesPerState = 0
}

// row is one line of a tab-separated expectations file.
type row struct {
	line   int
	fields []string
}

func readTSV(t *testing.T, path string, cols int) []row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < cols {
			t.Fatalf("%s:%d: want %d columns, have %d", path, n, cols, len(fields))
		}
		rows = append(rows, row{n, fields})
	}
	return rows
}

func parseDefines(t *testing.T, s string) map[string]int64 {
	t.Helper()
	if s == "-" || s == "" {
		return nil
	}
	out := map[string]int64{}
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("bad define %q", kv)
		}
		out[k] = n
	}
	return out
}

// TestExpected checks the verdict, kind, name and trace length of every
// row of EXPECTED.tsv.
func TestExpected(t *testing.T) {
	for _, r := range readTSV(t, "EXPECTED.tsv", 7) {
		f := r.fields
		name := strings.Join([]string{f[0], f[1], f[2]}, " ")
		t.Run(name, func(t *testing.T) {
			opts := verify.Options{}
			if f[2] != "-" {
				opts.Only = []string{f[2]}
			}
			_, res, err := check(f[0], parseDefines(t, f[1]), opts)
			if f[3] == "rejected" {
				if err == nil {
					t.Fatalf("EXPECTED.tsv:%d: want a static error, the spec was accepted", r.line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Verdict.String(); got != f[3] {
				t.Fatalf("EXPECTED.tsv:%d: verdict %s, want %s", r.line, got, f[3])
			}
			if res.Violation == nil {
				return
			}
			v := res.Violation
			if got := v.Kind.String(); got != f[4] {
				t.Errorf("EXPECTED.tsv:%d: kind %s, want %s", r.line, got, f[4])
			}
			if !oneOf(v.Name, f[5]) && v.Kind != verdict.Deadlock {
				t.Errorf("EXPECTED.tsv:%d: violated %s, want one of %s", r.line, v.Name, f[5])
			}
			if f[6] == "lasso" {
				if v.LoopStart < 0 {
					t.Errorf("EXPECTED.tsv:%d: want a lasso, got a finite trace", r.line)
				}
			} else if want, _ := strconv.Atoi(f[6]); len(v.Trace)-1 != want {
				t.Errorf("EXPECTED.tsv:%d: trace of %d steps, want %d", r.line, len(v.Trace)-1, want)
			}
		})
	}
}

func oneOf(name, alts string) bool {
	for _, a := range strings.Split(alts, "|") {
		if a == name {
			return true
		}
	}
	return false
}

// TestPeerCounts checks the exact state and transition counts of the peer
// models against SPIN, Rumur and TLC (../testdata/COUNTS.tsv, no
// reduction) and the exact orbit counts (../testdata/COUNTS_SYM.tsv,
// symmetry on, POR off). Their file column is a path from the repository
// root.
func TestPeerCounts(t *testing.T) {
	for _, tc := range []struct {
		file string
		opts verify.Options
	}{
		{"../testdata/COUNTS.tsv", verify.Options{NoSymmetry: true, NoPOR: true, Continue: true}},
		{"../testdata/COUNTS_SYM.tsv", verify.Options{NoPOR: true, Continue: true}},
	} {
		for _, r := range readTSV(t, tc.file, 6) {
			f := r.fields
			t.Run(tc.file+" "+f[0]+" "+f[1], func(t *testing.T) {
				if testenv.Short(t) && len(f[2]) > 6 {
					t.Skip("large model in -short mode")
				}
				path, ok := strings.CutPrefix(f[0], "examples/")
				if !ok {
					t.Fatalf("%s:%d: %s is not an example", tc.file, r.line, f[0])
				}
				_, res, err := check(path, parseDefines(t, f[1]), tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Verdict.String(); got != f[4] {
					t.Fatalf("%s:%d: verdict %s, want %s", tc.file, r.line, got, f[4])
				}
				if f[2] != "-" {
					got := []string{strconv.FormatInt(res.Stats.States, 10), strconv.FormatInt(res.Stats.Transitions, 10)}
					if diff := cmp.Diff([]string{f[2], f[3]}, got); diff != "" {
						t.Errorf("%s:%d: states, transitions (-want +got):\n%s", tc.file, r.line, diff)
					}
				}
				if f[5] != "-" && res.Violation != nil {
					if want, _ := strconv.Atoi(f[5]); len(res.Violation.Trace)-1 != want {
						t.Errorf("%s:%d: trace of %d steps, want %d", tc.file, r.line, len(res.Violation.Trace)-1, want)
					}
				}
			})
		}
	}
}

// TestFormatted: `wrapcheck fmt` leaves every example (and every spec the
// docs show) as it is.
func TestFormatted(t *testing.T) {
	docs, _ := filepath.Glob("../docs/testdata/*/*.wrap")
	for _, path := range append(specs(t), docs...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := syntax.Parse(path, src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if diff := cmp.Diff(string(src), string(syntax.Format(f))); diff != "" {
			t.Errorf("%s is not in fmt's layout (-file +fmt):\n%s", path, diff)
		}
	}
}

// TestPastVersions checks that every <name>_past.wrap, a version of
// <name>.wrap with its properties written with past-time operators instead
// of history variables, expects in EXPECTED.tsv the same verdicts,
// violations and trace lengths as <name>.wrap, for the same defines.
func TestPastVersions(t *testing.T) {
	data, err := os.ReadFile("EXPECTED.tsv")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // file -> "defines\tonly\tverdict\tkind\tname\tsteps" rows
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, rest, _ := strings.Cut(line, "\t")
		rows[f] = append(rows[f], rest)
	}
	n := 0
	for _, path := range specs(t) {
		path = filepath.ToSlash(path)
		base, ok := strings.CutSuffix(path, "_past.wrap")
		if !ok {
			continue
		}
		n++
		if diff := cmp.Diff(rows[base+".wrap"], rows[path]); diff != "" {
			t.Errorf("%s: EXPECTED.tsv rows differ from %s.wrap's (-history variables +past-time):\n%s", path, base, diff)
		}
	}
	if n == 0 {
		t.Error("no _past.wrap example")
	}
}

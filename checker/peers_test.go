package checker

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestPeerCounts runs the peer translations of ../examples/peers with the
// parameters of ../testdata/COUNTS.tsv and compares verdicts, state and
// transition counts and trace lengths with the figures of SPIN, Rumur and
// TLC.
func TestPeerCounts(t *testing.T) {
	const root = ".."
	f, err := os.Open(filepath.Join(root, "testdata", "COUNTS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) < 6 {
			continue
		}
		file, defs, states, trans, verdict, tlen := col[0], col[1], col[2], col[3], col[4], col[5]
		name := file + "/" + strings.ReplaceAll(defs, " ", ",")
		t.Run(name, func(t *testing.T) {
			want := peerRow{Verdict: verdict, States: states, Transitions: trans, TraceLength: tlen}
			if want.States != "-" {
				if n, _ := strconv.Atoi(want.States); n > 200000 && (testenv.Short(t) || raceEnabled) {
					t.Skip("large model skipped in -short and -race runs")
				}
				if n, _ := strconv.Atoi(want.States); n > 2000000 {
					t.Skip("too large for a unit test")
				}
			}
			opts := spec.Options{Defines: map[string]int64{}}
			for _, d := range strings.Fields(defs) {
				k, v, _ := strings.Cut(d, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				opts.Defines[k] = n
			}
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.ParseFile(file, src, opts)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(context.Background(), m, Options{Continue: true})
			if err != nil {
				t.Fatal(err)
			}
			got := peerRow{Verdict: r.Verdict.String(), States: "-", Transitions: "-", TraceLength: "-"}
			if want.States != "-" {
				got.States = strconv.FormatInt(r.Stats.States, 10)
				got.Transitions = strconv.FormatInt(r.Stats.Transitions, 10)
			}
			if r.Violation != nil {
				got.TraceLength = strconv.Itoa(len(r.Violation.Trace) - 1)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

type peerRow struct {
	Verdict, States, Transitions, TraceLength string
}

// TestDeterminismLarge checks on peer models with large levels that the
// verdict, the counts and the whole violation do not depend on Workers.
func TestDeterminismLarge(t *testing.T) {
	cases := []struct {
		file    string
		defines map[string]int64
	}{
		{"pipeline.wrap", map[string]int64{"K": 3, "N": 2, "BUG": 1}},
		{"philo.wrap", map[string]int64{"N": 10}},
		{"mutex.wrap", map[string]int64{"N": 4}},
		{"pipeline.wrap", map[string]int64{"K": 2, "N": 2}},
		{"toctou.wrap", map[string]int64{"D": 3, "M": 3, "FIXED": 1}},
	}
	for _, c := range cases {
		m := peerModel(t, c.file, c.defines)
		var first *Result
		for _, workers := range []int{1, 2, 4, 8} {
			r, err := run(context.Background(), m, Options{Workers: workers, Continue: true}, 1)
			if err != nil {
				t.Fatal(err)
			}
			r.Stats.Seconds, r.Stats.PeakHeapBytes, r.Stats.BytesPerState, r.Stats.Workers = 0, 0, 0, 0
			if first == nil {
				first = r
				continue
			}
			if diff := cmp.Diff(first, r); diff != "" {
				t.Errorf("%s: workers 1 vs %d (-w1 +w%d):\n%s", c.file, workers, workers, diff)
			}
		}
	}
}

// peerModel parses the peer translation file of ../examples/peers with
// the given defines.
func peerModel(tb testing.TB, file string, defines map[string]int64) *spec.Model {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", "peers", file))
	if err != nil {
		tb.Fatal(err)
	}
	m, err := spec.ParseFile(file, src, spec.Options{Defines: defines})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

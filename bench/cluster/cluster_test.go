package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorded is the table of the runs docs/distributed.md reports
// (bench/cluster.sh with RECORD=1).
const recorded = "testdata/runs.tsv"

// TestRoundTrips: r(N) as the package comment derives it from
// cluster/search.go, with 16 and 64 requests in flight.
func TestRoundTrips(t *testing.T) {
	for _, tt := range []struct{ n, c, want int }{
		{1, 16, 2}, {2, 16, 5}, {4, 16, 5}, {17, 16, 5}, {18, 16, 8}, {33, 16, 8}, {34, 16, 11}, {64, 16, 14},
		{64, 64, 5}, {65, 64, 5}, {66, 64, 8},
	} {
		if got := roundTrips(tt.n, tt.c); got != tt.want {
			t.Errorf("roundTrips(%d, %d) = %d, want %d", tt.n, tt.c, got, tt.want)
		}
	}
}

// TestChain: the longest sequence of operations that do not overlap.
func TestChain(t *testing.T) {
	ops := []op{{start: 0, end: 1}, {start: 0, end: 1.5}, {start: 1, end: 2}, {start: 1.2, end: 3}, {start: 2, end: 4}, {start: 4, end: 5}}
	if got := chain(ops); got != 4 {
		t.Errorf("chain = %d, want 4", got)
	}
}

// TestProfile: the pipeline's level profile of K runs is the K-fold
// convolution of one run's, and adds up to the closed form S1^K.
func TestProfile(t *testing.T) {
	p1 := []int64{1, 1, 3, 5, 7, 12, 15, 20, 17, 12, 6}
	for k, want := range map[int]int64{1: 99, 3: 970299, 4: 96059601} {
		var sum int64
		p := profileK(p1, k)
		for _, x := range p {
			sum += x
		}
		if sum != want || len(p) != 10*k+1 {
			t.Errorf("K=%d: %d states in %d levels, want %d in %d", k, sum, len(p), want, 10*k+1)
		}
	}
}

// TestModelReproduces runs the model on the recorded runs: the fitted
// CPU reproduces the CPU at latency 0 of every run it was fitted to (no
// more workers than the recording machine's 2 cores) within 15%, the latency
// term every run's wall time at 20 and 50 ms from the run below it within
// 20% (the wall time of the computing moves by about 0.3 s from run to
// run on the shared machine; at 5 ms the latency replaces part of the
// polling of the run at 0, which the model does not count: within 35%)
// and between 20 and 50 ms takes r(N) round trips a level (less 0.5 to
// more by 1: the polls of a worker that waits for a slower one), the recorded
// K=3 profile is the
// convolution of the K=1 one, and the predictions are those the docs
// give.
func TestModelReproduces(t *testing.T) {
	m, f := recordedFit(t)
	if f.a <= 0 || f.b <= 0 {
		t.Errorf("fitted costs a successor %g, a record %g: want both positive", f.a, f.b)
	}
	for _, r := range m.runs {
		if r.latency != 0 || r.n > defaultFitMax {
			continue // more workers than cores: see fitCPU
		}
		var model float64
		for _, lv := range r.levels {
			for _, l := range lv {
				model += f.levelCPU(l, m.transK)
			}
		}
		if e := math.Abs(model-r.logCPU) / r.logCPU; e > 0.15 {
			t.Errorf("N=%d: model CPU %.2f s, measured %.2f s: off by %.0f%%", r.n, model, r.logCPU, 100*e)
		}
	}
	sl := slopes(m)
	if len(sl) == 0 {
		t.Fatal("no two runs of one N at two latencies")
	}
	for _, s := range sl {
		tol := 0.20
		if s.lo.latency == 0 {
			tol = 0.35
		}
		if e := math.Abs(s.predict-s.hi.wall) / s.hi.wall; e > tol {
			t.Errorf("N=%d, %.0f → %.0f ms: model %.2f s, measured %.2f s: off by %.0f%% (tolerance %.0f%%)",
				s.n, s.lo.latency*1e3, s.hi.latency*1e3, s.predict, s.hi.wall, 100*e, 100*tol)
		}
		// Between 20 and 50 ms, where the latency is most of the wall
		// time, the round trips a level measured are r(N)'s, less half a
		// round trip (the timers) or more by one at most: a worker that
		// waits for a slower one polls, which only adds round trips.
		if d := s.rEff - float64(s.rN); s.lo.latency >= 0.02 && (d < -0.5 || d > 1) {
			t.Errorf("N=%d, %.0f → %.0f ms: %.2f round trips a level, r(N) = %d", s.n, s.lo.latency*1e3, s.hi.latency*1e3, s.rEff, s.rN)
		}
	}
	meas := m.runs[0].profile
	for len(meas) > 1 && meas[len(meas)-1] == 0 {
		meas = meas[:len(meas)-1]
	}
	if diff := cmp.Diff(profileK(m.profile1, 3), meas); diff != "" {
		t.Errorf("K=3 profile: convolution vs recorded (-want +got):\n%s", diff)
	}
	// The predictions are a function of the table: the report's figures
	// for the docs come from the same code, and one worker's speed-up
	// over itself is 1.
	p4 := profileK(m.profile1, 4)
	t1, _, _, _ := f.predict(p4, perState(4), 1, 0.02, 1e9, ioConcurrency)
	if tn, _, _, _ := f.predict(p4, perState(4), 1, 0.02, 1e9, oldConcurrency); tn != t1 {
		t.Errorf("one worker: %g s with 16 in flight, %g with 64", t1, tn)
	}
	var buf bytes.Buffer
	if err := report(&buf, m, 1e9, defaultFitMax); err != nil {
		t.Fatal(err)
	}
}

// TestRecordRoundTrip: a table written from runs reads back as the same
// model.
func TestRecordRoundTrip(t *testing.T) {
	m, err := readTable(recorded)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.tsv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.write(out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	want, _ := os.ReadFile(recorded)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(want, got) {
		t.Errorf("the table written back differs from %s", recorded)
	}
}

// ownersRecorded is the table of the owner functions' runs that
// docs/distributed.md reports ("Partitions"): bench/cluster.sh with PART
// and -record-shapes.
const ownersRecorded = "testdata/owners.tsv"

// TestOwnersMeasured: the recorded crossing fractions are those the
// partitions' structure implies (each of the pipeline's K copies is
// moved by 1/K of the transitions: the whole state's hash sends (N−1)/N
// of the successors away, run 1's state 1/K of that, runs 1 and 2 2/K),
// every imbalance is at least 1, the whole state's
// measured shape predicts what the hashing formula does within 7% (the
// levels of K=3 are smaller than K=4's and hash less evenly on 64
// workers), and no owner function reaches 0.7·N at N = 4, 16 or 64.
func TestOwnersMeasured(t *testing.T) {
	m, f := recordedFit(t)
	sh, err := readShapesTable(ownersRecorded)
	if err != nil {
		t.Fatal(err)
	}
	share := map[string]float64{"whole": 1, "run1": 1.0 / 3, "run1+2": 2.0 / 3, // K=3
		"K4 whole": 1, "K4 run1": 1.0 / 4, "K4 run1+2": 2.0 / 4}
	p4 := profileK(m.profile1, 4)
	for _, name := range sh.names {
		for n, x := range sh.by[name] {
			if x.states < 1 || x.level < 1 {
				t.Errorf("%s N=%d: imbalance %.3f (states), %.3f (levels): below 1", name, n, x.states, x.level)
			}
			if want, ok := share[name]; ok {
				if got := x.f / ((float64(n) - 1) / float64(n)); math.Abs(got-want) > 0.03 {
					t.Errorf("%s N=%d: f ÷ ((N−1)/N) = %.3f, want %.3f ± 0.03", name, n, got, want)
				}
			}
			for _, lat := range predictLat {
				t1, _, _, _ := f.predict(p4, perState(4), 1, lat, 1e9, ioConcurrency)
				tn, _, _, _ := f.predictShape(p4, perState(4), n, lat, 1e9, ioConcurrency, &x)
				if s := t1 / tn; slices.Contains(predictN, n) && s >= 0.7*float64(n) {
					t.Errorf("%s N=%d at %.0f ms: speed-up %.1f, at least 0.7·N: the docs say no owner function reaches it", name, n, lat*1e3, s)
				}
				if name == "whole" {
					hash, _, _, _ := f.predict(p4, perState(4), n, lat, 1e9, ioConcurrency)
					if e := math.Abs(tn-hash) / hash; e > 0.07 {
						t.Errorf("whole N=%d at %.0f ms: %.2f s with the measured shape, %.2f s with hashing's formula", n, lat*1e3, tn, hash)
					}
				}
			}
		}
	}
	for _, name := range []string{"whole", "run1", "run1+2"} {
		if len(sh.by[name]) == 0 {
			t.Errorf("no runs of %s recorded", name)
		}
	}
}

// TestShapesRoundTrip: a shapes table written reads back the same.
func TestShapesRoundTrip(t *testing.T) {
	sh, err := readShapesTable(ownersRecorded)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "owners.tsv")
	if err := sh.writeFile(path); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(ownersRecorded)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(want, got) {
		t.Errorf("the table written back differs from %s", ownersRecorded)
	}
}

// recordedFit returns the recorded runs and the CPU model fitted to them.
func recordedFit(t *testing.T) (*measured, fit) {
	t.Helper()
	m, err := readTable(recorded)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fitCPU(m, defaultFitMax)
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}

// k4Recorded are the tables of the K=4 runs docs/distributed.md reports
// ("With a partition"): 4 workers, the whole state, run 1's state, runs
// 1 and 2's.
var k4Recorded = []string{"testdata/k4-whole.tsv", "testdata/k4-run1.tsv", "testdata/k4-run12.tsv"}

// TestK4Tables: a K=4 table writes back byte for byte (its K line
// included), the three read together are three runs of K=4's
// transitions a state, and the CPU fitted to them costs a crossing
// record more than a successor, as the docs say (357 and 199 ns).
func TestK4Tables(t *testing.T) {
	for _, p := range k4Recorded {
		m, err := readTable(p)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := m.write(&b); err != nil {
			t.Fatal(err)
		}
		if want, _ := os.ReadFile(p); !bytes.Equal(want, b.Bytes()) {
			t.Errorf("%s: the table written back differs", p)
		}
	}
	m, err := readTables(k4Recorded)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.runs) != 3 || m.transK != perState(4) {
		t.Fatalf("%d runs of %.3f transitions a state, want 3 of %.3f", len(m.runs), m.transK, perState(4))
	}
	f, err := fitCPU(m, 4)
	if err != nil {
		t.Fatal(err)
	}
	if f.b <= f.a || f.a <= 0 {
		t.Errorf("K=4 fit: %.1f ns a successor, %.1f ns a crossing record", f.a*1e9, f.b*1e9)
	}
	if _, err := readTables([]string{recorded, k4Recorded[0]}); err == nil {
		t.Error("tables of K=3 and K=4 read together")
	}
}

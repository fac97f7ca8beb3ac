package main

// The owner functions (cluster's partitions, check --partition): the
// crossing fraction and the imbalance that runs of each measured, and the
// model's predictions with them.

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A shape is how a run's owner function spread its work: the fraction
// f of the successors that crossed to another worker (batch records
// sent ÷ successors), the busiest worker's states over the mean (states)
// and the same per level, summed over the levels (level: Σ max ÷ Σ mean
// of the states each worker expanded, what a level-synchronous search
// waits for).
type shape struct {
	n             int
	succ, sent    int64
	f             float64
	states, level float64
}

// shapeOf measures the shape of run r of a model of transK transitions
// a state (every state expanded, so successors = transK × states).
func (r *run) shapeOf(transK float64) shape {
	sh := shape{n: r.n}
	var all int64 = 1 // the initial state
	per := make([]int64, r.n)
	var sumMax, sumMean float64
	for s := range r.steps {
		var most int64
		var tot int64
		for i := range r.n {
			l := r.levels[i][s]
			sh.sent += l.sent
			per[i] += l.created
			all += l.created
			most = max(most, l.expanded)
			tot += l.expanded
		}
		sumMax += float64(most)
		sumMean += float64(tot) / float64(r.n)
	}
	sh.succ = int64(math.Round(transK * float64(all)))
	sh.f = float64(sh.sent) / float64(sh.succ)
	var most int64
	for _, x := range per {
		most = max(most, x)
	}
	sh.states = float64(most) / (float64(all-1) / float64(r.n))
	sh.level = sumMax / max(sumMean, 1)
	return sh
}

// ownerFlags are the -owners flags: a name and a recorded table each.
type ownerFlags []ownerTable

type ownerTable struct{ name, path string }

func (o *ownerFlags) String() string { return fmt.Sprint(*o) }

func (o *ownerFlags) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=TABLE, not %q", v)
	}
	*o = append(*o, ownerTable{name, path})
	return nil
}

// shapes are the shapes of the runs of some owner functions: the
// owners' names in order and, per name, the shape of each run at latency
// 0 by its N.
type shapes struct {
	names []string
	by    map[string]map[int]shape
}

func (s *shapes) add(name string, sh shape) {
	if s.by == nil {
		s.by = map[string]map[int]shape{}
	}
	if s.by[name] == nil {
		s.names = append(s.names, name)
		s.by[name] = map[int]shape{}
	}
	s.by[name][sh.n] = sh
}

// readShapes reads the owner tables (those of one name merged).
func readShapes(owners []ownerTable) (*shapes, error) {
	s := &shapes{}
	for _, o := range owners {
		om, err := readTable(o.path)
		if err != nil {
			return nil, err
		}
		for _, r := range om.runs {
			if r.latency == 0 {
				s.add(o.name, r.shapeOf(om.transK))
			}
		}
	}
	return s, nil
}

// writeFile writes the shapes as readShapesTable reads them: a line per
// owner function and N.
func (s *shapes) writeFile(path string) error {
	var b strings.Builder
	b.WriteString("# owners\tN\tsuccessors\tsent\timbalance (states)\timbalance (levels)\n")
	for _, name := range s.names {
		for _, n := range slices.Sorted(maps.Keys(s.by[name])) {
			sh := s.by[name][n]
			fmt.Fprintf(&b, "%s\t%d\t%d\t%d\t%.6f\t%.6f\n", name, n, sh.succ, sh.sent, sh.states, sh.level)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o666)
}

// readShapesTable reads a table that writeFile wrote.
func readShapesTable(path string) (*shapes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &shapes{}
	for ln, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		var sh shape
		var errs [5]error
		if len(c) == 6 {
			sh.n, errs[0] = strconv.Atoi(c[1])
			sh.succ, errs[1] = strconv.ParseInt(c[2], 10, 64)
			sh.sent, errs[2] = strconv.ParseInt(c[3], 10, 64)
			sh.states, errs[3] = strconv.ParseFloat(c[4], 64)
			sh.level, errs[4] = strconv.ParseFloat(c[5], 64)
		}
		if err := errors.Join(errs[:]...); len(c) != 6 || err != nil || sh.n < 1 || sh.succ < 1 {
			return nil, fmt.Errorf("%s:%d: want owners, N, successors, sent, two imbalances", path, ln+1)
		}
		sh.f = float64(sh.sent) / float64(sh.succ)
		s.add(c[0], sh)
	}
	return s, nil
}

// predictN are the machines and latencies of the predictions.
var (
	predictN   = []int{4, 16, 64}
	predictLat = []float64{0.005, 0.020, 0.050}
)

// reportOwners prints, for each owner table, the shape of its runs at
// latency 0 (crossing fraction, imbalance) and the model's speed-ups on
// the pipeline of K=4 with those measured figures, at each N of
// predictN that a run of the table measured; the CPU model is m's fit.
func reportOwners(w io.Writer, m *measured, sh *shapes, bw float64, fitMax int) error {
	f, err := fitCPU(m, fitMax)
	if err != nil {
		return err
	}
	p4 := profileK(m.profile1, 4)
	fmt.Fprintln(w, "\nOwner functions, measured (pipeline N=2, K=3 unless the name says K4; latency 0): crossing fraction f = batch records ÷ successors; imbalance = the busiest worker's states ÷ the mean, over the run and per level (Σ max ÷ Σ mean)")
	fmt.Fprintln(w, "| owners | N | successors | records sent | f | f ÷ ((N−1)/N) | imbalance (states) | imbalance (levels) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range sh.names {
		for _, n := range slices.Sorted(maps.Keys(sh.by[name])) {
			x := sh.by[name][n]
			fmt.Fprintf(w, "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f |\n", name, n, x.succ, x.sent, x.f,
				x.f/((float64(n)-1)/float64(n)), x.states, x.level)
		}
	}
	fmt.Fprintf(w, "\nPrediction with the measured f and imbalance (levels) applied to every level of K=4 (%.1f ns a successor, %.1f ns a crossing record, bandwidth %.0f MB/s):\n", f.a*1e9, f.b*1e9, bw/1e6)
	fmt.Fprintln(w, "| owners | latency ms | N | f | imbalance | T(1) s | T(N) s | compute s | latency s | transfer s | speed-up | ÷ N | ≥ 0.7·N | compute-bound speed-up ÷ N |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, name := range sh.names {
		for _, lat := range predictLat {
			t1, _, _, _ := f.predict(p4, perState(4), 1, lat, bw, ioConcurrency)
			for _, n := range predictN {
				x, ok := sh.by[name][n]
				if !ok {
					fmt.Fprintf(w, "| %s | %.0f | %d | not measured | | | | | | | | | | |\n", name, lat*1e3, n)
					continue
				}
				tn, comp, latT, tr := f.predictShape(p4, perState(4), n, lat, bw, ioConcurrency, &x)
				c1, _, _, _ := f.predict(p4, perState(4), 1, 0, math.Inf(1), ioConcurrency)
				cn, _, _, _ := f.predictShape(p4, perState(4), n, 0, math.Inf(1), ioConcurrency, &x)
				s := t1 / tn
				fmt.Fprintf(w, "| %s | %.0f | %d | %.3f | %.3f | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | %.2f | %t | %.2f |\n",
					name, lat*1e3, n, x.f, x.level, t1, tn, comp, latT, tr, s, s/float64(n), s >= 0.7*float64(n), c1/cn/float64(n))
			}
		}
	}
	return nil
}

// Command bar is the no-regression bar of bench/bar.sh: it compares the
// peer table of a new run of bench/peers.sh (the TSV that bench/table.py
// writes with --tsv) with the recorded one (bench/peers/latest.tsv, the
// table of docs/performance.md "Latest figures"), prints one line per
// figure compared and exits 1 when a figure got worse beyond the
// tolerance or a count differs.
//
//	go run ./bench/bar [-tol 0.10] RECORDED.tsv RUN.tsv
//
// Compared, per model and parameters present in both files:
//
//   - counts, always exactly: the states of the full space and of the
//     reduced run, and the run's own check that every tool found the same
//     states and transitions (its counts column names no disagreement);
//   - ratios where higher is better: w1÷SPIN, w1÷SPIN cpu, w1÷(5·Rumur t1),
//     w2÷w1 and peer÷wc (the fastest peer's reduced time over wrapcheck's);
//   - bytes per state where lower is better: B/state wc and compact.
//
// A ratio fails when it is below recorded·(1 − tol − q), a byte figure
// when it is above recorded·(1 + tol + q); q is the rounding of the
// times the figure is made of (the table gives seconds to 0.01 s): the
// sum of 0.01/t over them, t the smaller of the recorded and the new
// time, so that a 0.11 s run is not failed for the 9% that one
// hundredth of a second is of it. A figure recorded but missing from
// the run (a run that failed or timed out) fails too. The absolute
// rates are machine-dependent and are not compared. With -counts-only,
// only the counts decide: a figure beyond the tolerance is printed as
// "moved" (bench/bar.sh with BASE, where the A/B below decides speed).
//
//	go run ./bench/bar [-tol 0.10] -ab AB.tsv
//
// compares instead the two builds of one run of bench/ab.sh (its raw
// ab.tsv: the old build A beside the new B, interleaved on one machine,
// so that the machine's drift falls on both): per configuration the
// states and transitions of every run of both must be equal, and the
// median over the rounds of B's CPU time over A's must be at most
// 1 + tol + q, q the rounding of the two times (0.01 s over each
// median).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	tol := flag.Float64("tol", 0.10, "relative tolerance of the ratios and byte figures")
	countsOnly := flag.Bool("counts-only", false, "only the counts decide; figures beyond the tolerance are printed as moved")
	abPath := flag.String("ab", "", "compare the two builds of bench/ab.sh's raw `ab.tsv` instead of two tables")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/bar [-tol 0.10] [-counts-only] RECORDED.tsv RUN.tsv\n       go run ./bench/bar [-tol 0.10] -ab AB.tsv")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *abPath != "" {
		if flag.NArg() != 0 {
			flag.Usage()
			os.Exit(2)
		}
		f, err := os.Open(*abPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		res, err := compareAB(*abPath, f, *tol)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		res.write(os.Stdout, *tol)
		if res.failed() {
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	rec, err := readTable(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	run, err := readTable(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	res := compare(rec, run, *tol)
	if *countsOnly {
		res.countsOnly()
	}
	res.write(os.Stdout, *tol)
	if res.failed() {
		os.Exit(1)
	}
}

// columnNames are the columns of the TSV, as bench/table.py writes them.
const columnNames = "model params states spin_s rumur_t1_s w1_s w1_rate w1_spin w1_spin_cpu w1_rumur5 w2_s w2_w1 " +
	"bps_wc bps_spin bps_compact reduced_s reduced_states peer_reduced_s peer_reduced peer_wc counts"

// row is one line of the table: its cells by column name ("-": none).
type row map[string]string

// key names a row: the model and its parameters.
func (r row) key() string { return r["model"] + " " + r["params"] }

// table is the rows of one TSV file, in order.
type table struct {
	name string
	rows []row
}

// readTable reads a TSV of columns with its header line; lines starting
// with # are comments.
func readTable(path string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseTable(path, f)
}

func parseTable(name string, r io.Reader) (*table, error) {
	t := &table{name: name}
	sc := bufio.NewScanner(r)
	line, header := 0, false
	seen := map[string]bool{}
	columns := strings.Fields(columnNames)
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cells := strings.Split(text, "\t")
		if !header {
			if strings.Join(cells, " ") != strings.Join(columns, " ") {
				return nil, fmt.Errorf("%s:%d: header %q, want the columns %q", name, line, strings.Join(cells, " "), strings.Join(columns, " "))
			}
			header = true
			continue
		}
		if len(cells) != len(columns) {
			return nil, fmt.Errorf("%s:%d: %d cells, want %d", name, line, len(cells), len(columns))
		}
		rw := row{}
		for i, c := range columns {
			rw[c] = cells[i]
		}
		if seen[rw.key()] {
			return nil, fmt.Errorf("%s:%d: second row of %s", name, line, rw.key())
		}
		seen[rw.key()] = true
		t.rows = append(t.rows, rw)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header line", name)
	}
	return t, nil
}

// figure is one compared figure: a column, whether higher is better, and
// the time columns it is computed from (for the rounding allowance).
type figure struct {
	col, label string
	higher     bool
	times      []string
}

// figures are the compared figures.
func figures() []figure {
	return []figure{
		{"w1_spin", "w1÷SPIN", true, []string{"w1_s", "spin_s"}},
		{"w1_spin_cpu", "w1÷SPIN cpu", true, []string{"w1_s", "spin_s"}},
		{"w1_rumur5", "w1÷(5·Rumur t1)", true, []string{"w1_s", "rumur_t1_s"}},
		{"w2_w1", "w2÷w1", true, []string{"w2_s", "w1_s"}},
		{"peer_wc", "peer÷wc", true, []string{"reduced_s", "peer_reduced_s"}},
		{"bps_wc", "B/state wc", false, nil},
		{"bps_compact", "B/state compact", false, nil},
	}
}

// counts are the columns compared exactly, and their labels.
func counts() [][2]string {
	return [][2]string{{"states", "states"}, {"reduced_states", "reduced states"}}
}

// line is one compared figure of one row.
type line struct {
	key, label  string
	rec, now    string
	change      string // relative change, "" for counts
	allowed     string // the tolerance applied, "" for counts
	verdict     string // "ok", "REGRESSED", "COUNT MISMATCH", "MISSING"
	isFail      bool
	isCountFail bool
}

// result is the outcome of a comparison.
type result struct {
	lines      []line
	notRun     []string // rows recorded, absent from the run
	notInTable []string // rows of the run, not recorded
}

func (r *result) failed() bool {
	for _, l := range r.lines {
		if l.isFail {
			return true
		}
	}
	return false
}

// compare compares run with rec, row by row.
func compare(rec, run *table, tol float64) *result {
	res := &result{}
	byKey := map[string]row{}
	for _, rw := range run.rows {
		byKey[rw.key()] = rw
	}
	recorded := map[string]bool{}
	for _, want := range rec.rows {
		k := want.key()
		recorded[k] = true
		got, ok := byKey[k]
		if !ok {
			res.notRun = append(res.notRun, k)
			continue
		}
		for _, c := range counts() {
			w, g := want[c[0]], got[c[0]]
			if w == "-" && g == "-" {
				continue
			}
			l := line{key: k, label: c[1], rec: w, now: g, verdict: "ok"}
			if w != g {
				l.verdict, l.isFail, l.isCountFail = "COUNT MISMATCH", true, true
			}
			res.lines = append(res.lines, l)
		}
		if c := got["counts"]; strings.Contains(c, "DISAGREE") || strings.Contains(c, "DIFFER") {
			res.lines = append(res.lines, line{key: k, label: "tools agree", rec: want["counts"], now: c,
				verdict: "COUNT MISMATCH", isFail: true, isCountFail: true})
		}
		for _, f := range figures() {
			w, werr := number(want[f.col])
			if werr != nil {
				continue // not recorded
			}
			l := line{key: k, label: f.label, rec: want[f.col], now: got[f.col]}
			g, gerr := number(got[f.col])
			if gerr != nil {
				l.verdict, l.isFail = "MISSING", true
				res.lines = append(res.lines, l)
				continue
			}
			q := 0.0
			for _, tc := range f.times {
				a, aerr := number(want[tc])
				b, berr := number(got[tc])
				if aerr == nil && berr == nil {
					q += 0.01 / max(min(a, b), 0.01)
				}
			}
			allow := tol + q
			l.allowed = fmt.Sprintf("%.0f%%", 100*allow)
			if w != 0 {
				l.change = fmt.Sprintf("%+.1f%%", 100*(g-w)/w)
			}
			l.verdict = "ok"
			if f.higher && g < w*(1-allow) || !f.higher && g > w*(1+allow) {
				l.verdict, l.isFail = "REGRESSED", true
			}
			res.lines = append(res.lines, l)
		}
	}
	for _, rw := range run.rows {
		if !recorded[rw.key()] {
			res.notInTable = append(res.notInTable, rw.key())
		}
	}
	return res
}

// countsOnly leaves the verdict to the counts: a figure beyond the
// tolerance is "moved", not a failure.
func (r *result) countsOnly() {
	for i := range r.lines {
		if l := &r.lines[i]; l.isFail && !l.isCountFail {
			l.verdict, l.isFail = "moved", false
		}
	}
}

// abRun is one run of bench/ab.sh's raw TSV: round, configuration (model
// and flags), side (a or b), states, transitions, wall and CPU seconds.
type abRun struct {
	round         int
	model, flags  string
	side          string
	states, trans string
	wall, cpu     float64
}

// compareAB compares build b with build a in ab.sh's raw TSV (see the
// package documentation).
func compareAB(name string, r io.Reader, tol float64) (*result, error) {
	type config struct{ model, flags string }
	var order []config
	runs := map[config][]abRun{}
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		c := strings.Split(text, "\t")
		if len(c) != 8 {
			return nil, fmt.Errorf("%s:%d: %d cells, want 8", name, ln, len(c))
		}
		round, err := strconv.Atoi(c[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: round %q", name, ln, c[0])
		}
		if c[3] != "a" && c[3] != "b" {
			return nil, fmt.Errorf("%s:%d: side %q, want a or b", name, ln, c[3])
		}
		run := abRun{round: round, model: c[1], flags: c[2], side: c[3], states: c[4], trans: c[5]}
		// A run that failed has no times ("?"): its counts differ, so it
		// fails as a count below.
		run.wall, _ = strconv.ParseFloat(c[6], 64)
		run.cpu, _ = strconv.ParseFloat(c[7], 64)
		k := config{run.model, run.flags}
		if _, ok := runs[k]; !ok {
			order = append(order, k)
		}
		runs[k] = append(runs[k], run)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no runs", name)
	}
	res := &result{}
	for _, k := range order {
		label := abLabel(k.flags)
		a, b := map[int]abRun{}, map[int]abRun{}
		counts := map[string]bool{}
		for _, run := range runs[k] {
			if run.side == "a" {
				a[run.round] = run
			} else {
				b[run.round] = run
			}
			counts[run.states+" "+run.trans] = true
		}
		var ratios, as, bs []float64
		for round, ra := range a {
			rb, ok := b[round]
			if !ok {
				continue
			}
			// A time under the 0.01 s the runs are timed to counts as
			// half of it.
			ca, cb := max(ra.cpu, 0.005), max(rb.cpu, 0.005)
			ratios = append(ratios, cb/ca)
			as, bs = append(as, ca), append(bs, cb)
		}
		first := runs[k][0]
		if len(counts) != 1 || strings.Contains(first.states, "?") {
			cs := make([]string, 0, len(counts))
			for c := range counts {
				cs = append(cs, c)
			}
			sort.Strings(cs)
			res.lines = append(res.lines, line{key: k.model, label: label + " counts", rec: first.states, now: strings.Join(cs, "/"),
				verdict: "COUNT MISMATCH", isFail: true, isCountFail: true})
			continue
		}
		if len(ratios) == 0 {
			res.lines = append(res.lines, line{key: k.model, label: label, verdict: "MISSING", isFail: true})
			continue
		}
		ma, mb, m := median(as), median(bs), median(ratios)
		allow := tol + 0.01/max(ma, 0.01) + 0.01/max(mb, 0.01)
		l := line{key: k.model, label: label, rec: seconds(ma), now: seconds(mb),
			change: fmt.Sprintf("%+.1f%%", 100*(m-1)), allowed: fmt.Sprintf("%.0f%%", 100*allow), verdict: "ok"}
		if m > 1+allow {
			l.verdict, l.isFail = "REGRESSED", true
		}
		res.lines = append(res.lines, l)
	}
	return res, nil
}

// seconds prints a median CPU time of the A/B ("<0.01 s" under the
// runs' resolution).
func seconds(t float64) string {
	if t < 0.01 {
		return "<0.01 s"
	}
	return fmt.Sprintf("%.2f s", t)
}

// abLabel names a configuration of ab.sh by its flags: w1, w2, w1
// compact, or the defaults.
func abLabel(flags string) string {
	f := " " + flags + " "
	var l string
	switch {
	case strings.Contains(f, " --workers 1 "):
		l = "w1"
	case strings.Contains(f, " --workers 2 "):
		l = "w2"
	case strings.TrimSpace(flags) == "":
		return "defaults cpu"
	default:
		return strings.TrimSpace(flags)
	}
	if strings.Contains(f, " --hash-compact ") {
		l += " compact"
	}
	return l + " cpu"
}

// median returns the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// number parses a cell; "-" (no figure) is an error.
func number(s string) (float64, error) {
	if s == "-" || s == "" {
		return 0, errors.New("no figure")
	}
	return strconv.ParseFloat(s, 64)
}

// write prints the comparison as a table and a verdict line.
func (r *result) write(w io.Writer, tol float64) {
	fmt.Fprintf(w, "%-18s %-16s %14s %14s %8s %8s  %s\n", "model", "figure", "recorded", "now", "change", "allowed", "verdict")
	fails, countFails := 0, 0
	for _, l := range r.lines {
		fmt.Fprintf(w, "%-18s %-16s %14s %14s %8s %8s  %s\n", l.key, l.label, l.rec, l.now, l.change, l.allowed, l.verdict)
		if l.isFail {
			fails++
		}
		if l.isCountFail {
			countFails++
		}
	}
	if len(r.notRun) > 0 {
		fmt.Fprintf(w, "recorded, not run: %s\n", strings.Join(r.notRun, "; "))
	}
	if len(r.notInTable) > 0 {
		fmt.Fprintf(w, "run, not recorded (not compared): %s\n", strings.Join(r.notInTable, "; "))
	}
	if fails == 0 {
		fmt.Fprintf(w, "bar: pass (%d figures compared, tolerance %.0f%% plus the rounding of the times)\n", len(r.lines), 100*tol)
		return
	}
	fmt.Fprintf(w, "bar: FAIL: %d of %d figures (%d count mismatches)\n", fails, len(r.lines), countFails)
}

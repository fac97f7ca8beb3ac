package checker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
)

// compactView is the part of a Result that hash compaction must not
// change when no fingerprint collision occurs: everything but timings,
// memory figures and notes.
type compactView struct {
	Verdict     Verdict
	Reason      string
	States      int64
	Transitions int64
	Depth       int
	Violation   *Violation
	Coverage    Coverage
}

func comparableOf(r *Result) compactView {
	return compactView{r.Verdict, r.Reason(), r.Stats.States, r.Stats.Transitions, r.Stats.Depth, r.Violation, r.Coverage}
}

// sameAsFull checks m with opts in the full mode (one worker) and with
// hash compaction (one worker, and four expanding every level in
// parallel): the results must be the same, and the compact ones carry the
// collision note.
func sameAsFull(t *testing.T, name string, m *spec.Model, opts Options) {
	t.Helper()
	opts.Workers = 1
	full, err := Run(context.Background(), m, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := comparableOf(full)
	opts.HashCompact = true
	for _, workers := range []int{1, 4} {
		opts.Workers = workers
		r, err := run(context.Background(), m, opts, 1)
		if err != nil {
			t.Fatalf("%s: compact w%d: %v", name, workers, err)
		}
		if diff := cmp.Diff(want, comparableOf(r)); diff != "" {
			t.Fatalf("%s: full vs compact w%d (-full +compact):\n%s", name, workers, diff)
		}
		if len(r.Notes) == 0 || !strings.HasPrefix(r.Notes[len(r.Notes)-1], "hash compaction: ") {
			t.Errorf("%s: compact w%d: notes %q, want the collision probability", name, workers, r.Notes)
		}
	}
}

// wideModel has 300 successors of its initial state; its violation's
// trace goes through the 281st, whose trace record's ordinal does not fit
// in a byte.
func wideModel() *spec.Model {
	b := newBuilder("wide")
	x := b.global("x", rangeT(0, 299))
	z := b.global("z", rangeT(0, 2))
	y := b.local(0, rangeT(0, 299))
	b.action("pick", eq(z, num(0)), choose(0, rangeT(0, 299), nil, assign(x, y), assign(z, num(1))))
	b.action("bump", and(eq(x, num(280)), eq(z, num(1))), assign(z, num(2)))
	b.invariant("NotBumped", ne(z, num(2)))
	b.m.Terminal = tru()
	return b.build()
}

// TestCompactDifferential compares hash compaction with the full search
// on the unit models, the engine goldens and 300 random models, with
// every level expanded in parallel; TestCompactExamples has the examples.
func TestCompactDifferential(t *testing.T) {
	units := []struct {
		name  string
		model *spec.Model
		opts  Options
	}{
		{"counter/terminal", counterModel(5, true), Options{}},
		{"counter/deadlock", counterModel(5, false), Options{}},
		{"two-counters", twoCounters(), Options{}},
		{"ask-enum", askEnumModel(), Options{}},
		{"choose-where", chooseModel(), Options{}},
		{"branching-init", initModel(), Options{}},
		{"runtime-error", overflowModel(), Options{}},
		{"assert", assertModel(), Options{}},
		{"record-answer", recordAskModel(), Options{}},
		{"approval", approvalModel(), Options{}},
		{"approval-continue", approvalModel(), Options{Continue: true}},
		{"index-error", indexModel(), Options{}},
		{"blocked-ask", blockedAskModel(), Options{}},
		{"no-variables", emptyModel(), Options{}},
		{"max-depth", twoCounters(), Options{MaxDepth: 2}},
		{"canon", pairModel(false), Options{Canon: sortPair}},
		{"canon-trace", pairModel(true), Options{Canon: sortPair}},
		{"ample", pairModel(false), Options{Ample: func(_ []int64, en []int) []int { return en[:1] }}},
		{"ample-last", pairModel(true), Options{Ample: func(_ []int64, en []int) []int { return en[len(en)-1:] }}},
		{"wide", wideModel(), Options{}},
	}
	for _, u := range units {
		sameAsFull(t, u.name, u.model, u.opts)
	}
	if r, _ := Run(context.Background(), wideModel(), Options{HashCompact: true}); summarize(r).Actions == nil || r.Violation.Trace[1].State[0] != 280 {
		t.Errorf("wide: %+v, want a violation through x = 280", summarize(r))
	}

	for _, file := range golden.Glob(t, filepath.Join("testdata", "*.txtar")) {
		ar := golden.Load(t, file)
		// The goldens' state limits are left out: the full space is compared.
		opts := Options{NoDeadlock: goldenOptions(t, ar).NoDeadlock}
		m, err := spec.ParseFile(filepath.Base(file), ar.Spec(t), spec.Options{Defines: ar.Defines(t)})
		if err != nil {
			t.Fatal(err)
		}
		sameAsFull(t, file, m, opts)
	}

	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		sameAsFull(t, fmt.Sprintf("random model %d", i), gen.GenerateModel(r, gen.Counters), Options{NoDeadlock: r.IntN(2) == 0})
	}

}

// TestCompactLimits: a limit or a cancelled search ends a compact search
// with Unknown and the counts so far, as in the full mode.
func TestCompactLimits(t *testing.T) {
	r, err := Run(context.Background(), twoCounters(), Options{HashCompact: true, MaxStates: 5, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Verdict: "incomplete", Reason: "state limit", States: 6, Transitions: 6, Depth: 2}, summarize(r)); diff != "" {
		t.Errorf("max-states (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err = Run(ctx, twoCounters(), Options{HashCompact: true}); err != nil || r.Reason() != "interrupted" {
		t.Errorf("cancelled: %v, %v; want interrupted", r, err)
	}

	b := newBuilder("big")
	for _, n := range []string{"a", "b", "c", "d"} {
		v := b.global(n, rangeT(0, 63))
		b.action("inc"+n, lt(v, num(63)), assign(v, add(v, num(1))))
	}
	b.m.Terminal = tru()
	big := b.build()
	r, err = Run(context.Background(), big, Options{HashCompact: true, MemoryBudget: 1})
	if err != nil || r.Verdict != Unknown || r.Reason() != "memory budget" {
		t.Errorf("memory budget: %v %q %v", r.Verdict, r.Reason(), err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err = Run(ctx, big, Options{HashCompact: true, Workers: 2})
	if err != nil || r.Verdict != Unknown || r.Reason() != "timeout" || r.Stats.States == 0 {
		t.Errorf("timeout: %v %q %d states, %v", r.Verdict, r.Reason(), r.Stats.States, err)
	}
}

// TestFPSet checks the fingerprint set against a map, through many
// rebuilds and runs that shift: with the tables' growth of every size
// (large: the load of large tables from 1,024 entries a shard, as from
// fpLargeShard).
func TestFPSet(t *testing.T) {
	for _, large := range []bool{false, true} {
		t.Run(fmt.Sprintf("large=%v", large), func(t *testing.T) { testFPSet(t, large) })
	}
}

func testFPSet(t *testing.T, large bool) {
	s := newFPSet()
	maxBytes := 11.0
	if large {
		s.large = 1 << 10
		maxBytes = 8/0.6 + 0.5
	}
	r := rand.New(rand.NewPCG(5, 6))
	want := map[uint64]bool{}
	var batch [nShards][]uint64
	for round := range 40 {
		for k := range 2000 * (round + 1) {
			fp := fingerprint(r.Uint64())
			if round%3 == 0 && k < 2000 {
				fp = fingerprint(r.Uint64() & 0xFF000000000003FF) // crowd a few homes
			}
			sh := fp >> (64 - shardBits)
			batch[sh] = append(batch[sh], fp)
			want[fp] = true
		}
		for i := range batch {
			s.insertShard(i, batch[i])
			batch[i] = batch[i][:0]
		}
	}
	if got := s.Len(); got != int64(len(want)) {
		t.Errorf("Len = %d, want %d", got, len(want))
	}
	for fp := range want {
		if !s.has(fp) {
			t.Fatalf("lost %#x", fp)
		}
	}
	for range 100000 {
		fp := fingerprint(r.Uint64())
		if s.has(fp) != want[fp] {
			t.Fatalf("has(%#x) = %v", fp, !want[fp])
		}
	}
	for i := range s.shards {
		sh := &s.shards[i]
		if !slices.IsSorted(slices.DeleteFunc(slices.Clone(sh.tab), func(e uint64) bool { return e == 0 })) {
			t.Fatalf("shard %d is not sorted", i)
		}
	}
	bpf := float64(s.bytes.Load()) / float64(s.Len())
	t.Logf("%.2f bytes per fingerprint", bpf)
	if bpf > maxBytes {
		t.Errorf("%.1f bytes per fingerprint, want <= %.1f", bpf, maxBytes)
	}
	if large && bpf < 10.5 {
		t.Errorf("%.1f bytes per fingerprint: the large tables' load 0.6 was not used", bpf)
	}
}

// failingFile is a spill file whose writes fail after the first okWrites.
type failingFile struct {
	spillFile
	okWrites int
}

func (f *failingFile) WriteAt(b []byte, off int64) (int, error) {
	if f.okWrites == 0 {
		return 0, errors.New("disk full")
	}
	f.okWrites--
	return f.spillFile.WriteAt(b, off)
}

// TestSpillFiles: the temporary files are gone after a search; a search
// that cannot create them ends with an error; one whose writes fail
// midway ends incomplete (Unknown, the I/O error as the reason, the
// figures so far), never with a result built on lost data.
func TestSpillFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	r, err := Run(context.Background(), wideModel(), Options{HashCompact: true, Workers: 2})
	if err != nil || r.Verdict != Violated {
		t.Fatalf("search: %v, %v", r, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}

	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	got := "no error"
	if _, err := Run(context.Background(), wideModel(), Options{HashCompact: true}); err != nil {
		// the whole message, the temporary directory written $TMP and the
		// random part of the file's name (os.CreateTemp's) *
		got = regexp.MustCompile(`-[0-9]+: `).ReplaceAllString(strings.ReplaceAll(err.Error(), dir, "$TMP"), "-*: ")
	}
	want := "checker: hash compaction needs a temporary file: open $TMP/missing/wrapcheck-records-*: no such file or directory"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no temporary directory: error (-want +got):\n%s", diff)
	}
	t.Setenv("TMPDIR", dir)

	orig := createTemp
	defer func() { createTemp = orig }()
	for _, ok := range []int{0, 1, 3} {
		createTemp = func(pattern string) (spillFile, string, error) {
			f, name, err := orig(pattern)
			return &failingFile{f, ok}, name, err
		}
		r, err := Run(context.Background(), twoCounters(), Options{HashCompact: true, Workers: 1})
		if err != nil || r.Verdict != Unknown || r.Violation != nil || r.Stats.States == 0 {
			t.Errorf("writes failing after %d: result %+v, err = %v", ok, r, err)
		}
		if diff := cmp.Diff("I/O error of the temporary files: checker: hash compaction temporary file: disk full", r.Reason()); diff != "" {
			t.Errorf("writes failing after %d: reason (-want +got):\n%s", ok, diff)
		}
	}
}

// TestGroupByShard: the fingerprints are permuted, each shard's in its
// range.
func TestGroupByShard(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 1000, 50000} {
		fps := make([]uint64, n)
		for i := range fps {
			fps[i] = r.Uint64()
			if i%5 == 0 {
				fps[i] &= 0x03FFFFFFFFFFFFFF // crowd the first shards
			}
		}
		want := slices.Clone(fps)
		cnt := groupByShard(fps)
		for i := range nShards {
			for _, f := range fps[cnt[i]:cnt[i+1]] {
				if int(f>>(64-shardBits)) != i {
					t.Fatalf("n=%d: %#x in shard %d's range", n, f, i)
				}
			}
		}
		slices.Sort(fps)
		slices.Sort(want)
		if !slices.Equal(fps, want) {
			t.Fatalf("n=%d: not a permutation", n)
		}
	}
}

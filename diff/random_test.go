package diff

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// bruteTraces enumerates the observed traces of m of at most depth steps,
// level by level, each as one string; shared names the observed
// variables. It follows every trace explicitly (no pairs, no subsets).
func bruteTraces(t *testing.T, m *spec.Model, shared []string, depth int) []map[string]bool {
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	vars := map[string]*spec.Var{}
	for _, v := range m.Vars {
		vars[v.Name] = v
	}
	st := make([]int64, prog.Slots())
	obs := func(label string, s machine.State) string {
		prog.Unpack(st, s)
		var b strings.Builder
		b.WriteString(label)
		for _, name := range shared {
			v := vars[name]
			b.WriteString(" " + name + "=" + report.ValueText(v.Type, st[v.Slot:v.Slot+v.Type.Width]))
		}
		return b.String() + ";"
	}
	var levels []map[string]bool
	cur := map[string][][]uint64{}
	_ = mach.Init(func(_ int, s machine.State) {
		k := obs("init", s)
		cur[k] = append(cur[k], slices.Clone(s))
	})
	for d := 0; ; d++ {
		lv := map[string]bool{}
		for k := range cur {
			lv[k] = true
		}
		levels = append(levels, lv)
		if d == depth {
			return levels
		}
		next := map[string][][]uint64{}
		for k, states := range cur {
			for _, s := range states {
				_ = mach.Successors(s, func(a, _ int, u machine.State) {
					nk := k + obs(m.Actions[a].Name, u)
					if !slices.ContainsFunc(next[nk], func(x []uint64) bool { return slices.Equal(x, u) }) {
						next[nk] = append(next[nk], slices.Clone(u))
					}
				})
			}
		}
		cur = next
	}
}

// TestRandomPairs compares random specs one mutation apart with a brute
// force: the shortest distinguishing trace of each direction has the
// length of the shortest trace of one that the other's explicit trace
// enumeration lacks, and it replays as distinguishing.
func TestRandomPairs(t *testing.T) {
	const depth = 5
	n := 150
	if testenv.Short(t) {
		n = 30
	}
	r := rand.New(rand.NewPCG(17, 2026))
	var same, differ int
	for i := range n {
		g := gen.Generate(r, gen.Config{Shape: gen.Pair})
		oldSrc, newSrc := g.Source, g.Mutant
		old, err := spec.ParseFile("old.wrap", []byte(oldSrc), spec.Options{})
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, oldSrc)
		}
		new, err := spec.ParseFile("new.wrap", []byte(newSrc), spec.Options{})
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, newSrc)
		}
		res, err := Compare(context.Background(), old, new, Options{NoChecks: true})
		if err != nil {
			t.Fatal(err)
		}
		shared := g.Observed
		var got []string
		for _, s := range res.Obs.Shared {
			got = append(got, s.Old.Name)
		}
		if !slices.Equal(got, shared) {
			t.Fatalf("%d: observed %v, want %v", i, got, shared)
		}
		bo, bn := bruteTraces(t, old, shared, depth), bruteTraces(t, new, shared, depth)
		for _, c := range []struct {
			d        *Direction
			from, to []map[string]bool
		}{{res.OldOnly, bo, bn}, {res.NewOnly, bn, bo}} {
			want := -1
			for l := 0; l <= depth && want < 0; l++ {
				for k := range c.from[l] {
					if !c.to[l][k] {
						want = l
						break
					}
				}
			}
			got := -1
			if c.d.Trace != nil {
				got = len(c.d.Trace.Steps) - 1
				checkDistinguishing(t, res, c.d)
			}
			if c.d.Incomplete {
				t.Fatalf("%d: incomplete: %s", i, c.d.Reason)
			}
			if got != want && !(want < 0 && got > depth) {
				t.Fatalf("%d: %s-only trace of %d steps, the brute force finds %d (-1: none up to %d)\nold:\n%s\nnew:\n%s",
					i, c.d.From, got, want, depth, oldSrc, newSrc)
			}
		}
		if res.OldOnly.Trace == nil && res.NewOnly.Trace == nil {
			same++
		} else {
			differ++
		}
	}
	if same == 0 || differ == 0 {
		t.Fatalf("the random pairs are not varied: %d same, %d differ", same, differ)
	}
	t.Logf("%d pairs: %d same, %d differ", n, same, differ)
}

package diff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// A small random spec: two processes over x: 0..2, y: bool and z (or w,
// after a renaming mutation) : 0..1, one agent. Every statement keeps its
// values in range, so that no branch fails.
type rspec struct {
	xInit int
	third string // "z" or "w"
	// initY makes y start undetermined: an init block chooses it.
	initY bool
	acts  []ract
}

type ract struct {
	proc, name string
	guard      string // "" for none
	body       []string
}

func (g rspec) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "spec R\nvar x: 0..2 = %d\nvar y: bool\nvar %s: 0..1\nagent ag(v: 0..2): bool\n", g.xInit, g.third)
	if g.initY {
		b.WriteString("init { choose b in bool { y := b } }\n")
	}
	for _, proc := range []string{"p", "q"} {
		fmt.Fprintf(&b, "process %s {\n", proc)
		for _, a := range g.acts {
			if a.proc != proc {
				continue
			}
			fmt.Fprintf(&b, "  action %s", a.name)
			if a.guard != "" {
				fmt.Fprintf(&b, " when %s", strings.ReplaceAll(a.guard, "Z", g.third))
			}
			b.WriteString(" {\n")
			for _, s := range a.body {
				fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(s, "Z", g.third))
			}
			if len(a.body) == 0 {
				b.WriteString("    skip\n")
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
	}
	b.WriteString("terminal true\n")
	return b.String()
}

func rguard(r *rand.Rand) string {
	gs := []string{"", "x < 2", "x == 0", "x == 1", "not y", "y", "Z == 0", "Z == 1", "x != Z"}
	return gs[r.IntN(len(gs))]
}

func rstmt(r *rand.Rand) string {
	ss := []string{"x := 0", "x := 1", "x := 2", "x := (x + 1) % 3", "y := not y", "y := true", "y := false",
		"Z := 1 - Z", "Z := 0", "Z := 1", "choose v in 0..2 where v != x { x := v }", "y := ask ag(x)",
		"if y { x := 2 } else { Z := 1 }", "choose b in bool { y := b }"}
	return ss[r.IntN(len(ss))]
}

func randomSpec(r *rand.Rand) rspec {
	g := rspec{third: "z", initY: r.IntN(4) == 0}
	n := 2 + r.IntN(4)
	for i := range n {
		a := ract{proc: []string{"p", "q"}[r.IntN(2)], name: fmt.Sprintf("a%d", i), guard: rguard(r)}
		for range 1 + r.IntN(2) {
			a.body = append(a.body, rstmt(r))
		}
		g.acts = append(g.acts, a)
	}
	return g
}

// mutate returns g changed in one place.
func mutate(r *rand.Rand, g rspec) rspec {
	m := rspec{xInit: g.xInit, third: g.third, initY: g.initY}
	for _, a := range g.acts {
		a.body = slices.Clone(a.body)
		m.acts = append(m.acts, a)
	}
	a := &m.acts[r.IntN(len(m.acts))]
	switch r.IntN(8) {
	case 0:
		a.guard = rguard(r)
	case 1:
		a.body[r.IntN(len(a.body))] = rstmt(r)
	case 2:
		a.body = append(a.body, rstmt(r))
	case 3:
		if len(a.body) > 1 {
			i := r.IntN(len(a.body))
			a.body = slices.Delete(a.body, i, i+1)
		}
	case 4:
		if len(m.acts) > 1 {
			i := r.IntN(len(m.acts))
			m.acts = slices.Delete(m.acts, i, i+1)
		}
	case 5:
		m.xInit = r.IntN(3)
	case 6:
		m.third = "w"
	case 7:
		m.initY = !m.initY
	}
	return m
}

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
	if testing.Short() {
		n = 30
	}
	r := rand.New(rand.NewPCG(17, 2026))
	var same, differ int
	for i := range n {
		g := randomSpec(r)
		h := mutate(r, g)
		oldSrc, newSrc := g.text(), h.text()
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
		shared := []string{"x", "y"}
		if g.third == h.third {
			shared = append(shared, g.third)
		}
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

package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

func pairSpec(r *rand.Rand) rspec {
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

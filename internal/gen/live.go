package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// live writes a spec of the Live shape: a small random spec with a
// property: two processes (one a family of two) over x: 0..2 and y:
// bool, an agent, and sometimes a fairness declaration.
func live(r *rand.Rand) string {
	guards := []string{"", "x < 2", "x == 0", "x != 2", "not y", "y", "x == 1 or y"}
	stmts := []string{"x := 0", "x := 1", "x := 2", "x := (x + 1) % 3", "y := not y", "y := true", "y := false",
		"y := ask ag(x)", "choose v in 0..2 where v != x { x := v }", "skip"}
	props := []string{"eventually x == 2", "always eventually y", "eventually always not y", "always (y implies eventually x == 0)", "eventually (x == 2 and y)"}
	var b strings.Builder
	b.WriteString("spec R\ntype I = 0..1\nvar x: 0..2\nvar y: bool\nagent ag(v: 0..2): bool\n")
	for _, proc := range []string{"p", "q[i: I]"} {
		fmt.Fprintf(&b, "process %s {\n", proc)
		for k := range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "  action a%d", k)
			if g := guards[r.IntN(len(guards))]; g != "" {
				fmt.Fprintf(&b, " when %s", g)
			}
			fmt.Fprintf(&b, " { %s }\n", stmts[r.IntN(len(stmts))])
		}
		b.WriteString("}\n")
	}
	if r.IntN(3) == 0 {
		b.WriteString("terminal x == 2\n")
	} else {
		b.WriteString("terminal true\n")
	}
	fmt.Fprintf(&b, "property P: %s\n", props[r.IntN(len(props))])
	switch r.IntN(4) {
	case 0:
		b.WriteString("fairness weak p\n")
	case 1:
		b.WriteString("fairness strong q.a0\n")
	}
	return b.String()
}

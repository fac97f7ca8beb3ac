package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// temporal writes a spec of the Temporal shape: a small random spec with a symmetric type: a
// family of workers indexed by it, shared state, optional independent
// processes and fairness, and properties of every shape the reductions
// treat differently (top-level forall, symmetric atoms, quantifiers under
// temporal operators, next).
func temporal(r *rand.Rand) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	k := 2 + r.IntN(2)
	p("spec RandomLTL")
	p("const K = %d", k)
	p("type Id = symmetric K")
	p("var flags: [Id]bool")
	p("var members: set of Id")
	p("var cnt: 0..2 = 0")
	p("agent judge(): bool")
	acts := []string{
		"action step when st < 2 { st := st + 1 }",
		"action reset when st == 2 { st := 0 }",
		"action grab when not flags[i] and card(members) < 2 { flags[i] := true\n members := members union {i} }",
		"action drop when flags[i] { flags[i] := false\n members := members minus {i} }",
		"action ask when st == 1 { let ok = ask judge()\n if ok { st := 2 } else { st := 0 } }",
		"action bump when cnt < 2 and st == 2 { cnt := cnt + 1 }",
		"action finish when st == 2 and cnt > 0 { done := true }",
	}
	p("process worker[i: Id] {")
	p("  var st: 0..2 = 0")
	p("  var done: bool = false")
	n := 0
	for _, a := range acts {
		if r.IntN(2) == 0 {
			p("  %s", a)
			n++
		}
	}
	if n == 0 {
		p("  %s", acts[0])
	}
	p("}")
	counter := r.IntN(2) == 0
	if counter {
		p("process counter {")
		p("  action tick when cnt > 0 { cnt := cnt - 1 }")
		p("}")
	}
	if r.IntN(2) == 0 {
		p("process solo[s: Id] {")
		p("  var z: 0..1 = 0")
		p("  action flip { z := 1 - z }")
		p("}")
	}
	props := []string{
		"property EachSettles: forall j in Id: always (worker[j].st == 1 implies eventually worker[j].st != 1)",
		"property SomeFlag: eventually (exists j in Id: flags[j])",
		"property CntReturns: always eventually cnt == 0",
		"property FlagsClear: forall j in Id: eventually always not flags[j]",
		"property AllRecover: always (forall j in Id: eventually worker[j].st == 0)",
		"property MembersEmpty: (exists j in Id: flags[j]) leadsto card(members) == 0",
		"property NextKeep: forall j in Id: always (flags[j] implies next (flags[j] or card(members) < 2))",
		"property Done: forall j in Id: eventually worker[j].done",
		"property Nested: eventually (forall j in Id: always not flags[j])",
		"property SomeStays: exists j in Id: eventually always worker[j].st == 2",
	}
	for _, pr := range props {
		if r.IntN(2) == 0 {
			p("%s", pr)
		}
	}
	switch r.IntN(4) {
	case 0:
		p("fairness weak worker")
	case 1:
		if counter {
			p("fairness weak counter")
		}
	case 2:
		p("fairness strong worker")
	}
	return b.String()
}

package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestHoistedForalls compares the engine with the oracle on random specs
// whose invariants are nested foralls over disjunctions sharing a term,
// the shape whose common terms the machine tests once (machine/hoist.go):
// mutual exclusions, implications with an antecedent of the outer
// variable, disjunctions mixing the two variables, some of them false in
// reachable states (a violation and its trace, compared), and some with
// an index that can leave its array (a runtime error, not hoisted).
func TestHoistedForalls(t *testing.T) {
	atoms := []string{
		"st[p] == CS", "st[p] != IDLE", "st[q] == CS", "st[q] == WAIT",
		"lv[p] < lv[q]", "lv[p] >= 2", "lv[q] == 0", "p == q", "p < q", "ok[p]", "not ok[q]",
	}
	r := rand.New(rand.NewPCG(7, 11))
	compared, hoisted, invs := 0, 0, 0
	for n := range 40 {
		var b strings.Builder
		procHeader(&b, fmt.Sprintf("H%d", n), r)
		b.WriteString("  action enter when st[i] == WAIT and (forall j in P: j == i or st[j] != CS) { st[i] := CS  lv[i] := (lv[i] + 1) % 3 }\n")
		b.WriteString("  action leave when st[i] == CS { st[i] := IDLE  ok[i] := not ok[i] }\n")
		b.WriteString("  action bump when k < 2 { k := k + 1 }\n}\n")
		for i := range 1 + r.IntN(3) {
			// A term of p first (common to the instances over q), then
			// one to three others, joined by or, implies, or not-and.
			head := atoms[r.IntN(2)+4*r.IntN(2)%4]
			if r.IntN(3) == 0 {
				head = "ok[p]"
			}
			var rest []string
			for range 1 + r.IntN(3) {
				rest = append(rest, atoms[r.IntN(len(atoms))])
			}
			var body string
			switch r.IntN(3) {
			case 0:
				body = head + " or " + strings.Join(rest, " or ")
			case 1:
				body = head + " implies (" + strings.Join(rest, " or ") + ")"
			default:
				body = "not (" + head + " and " + rest[0] + ")"
			}
			if r.IntN(8) == 0 { // an index that can leave P's range
				body = head + " implies lv[q + k] >= 0"
			}
			fmt.Fprintf(&b, "invariant I%d: forall p in P: forall q in P: %s\n", i, body)
		}
		src := b.String()
		name := fmt.Sprintf("hoist%d", n)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s does not check: %v\n%s", name, err, src)
		}
		p, err := machine.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m.Invariants {
			if len(p.Conjuncts(i)) <= 3 {
				hoisted++
			}
		}
		invs += len(m.Invariants)
		if r := compare(t, name, m, Options{MaxStates: 40_000}); r != nil {
			compared++
		}
	}
	t.Logf("%d specs compared; %d of %d invariants kept one conjunct a value of p", compared, hoisted, invs)
	if compared < 30 || hoisted < invs/3 {
		t.Errorf("%d specs compared, %d invariants hoisted: too few to test anything", compared, hoisted)
	}
}

// TestFlatQuantifiers compares the engine with the oracle on random specs
// whose guards and invariants are foralls and exists over conjunctions
// and disjunctions of comparisons of slots, which the machine compiles
// to one closure of range tests each (machine/flat.go): some of them
// false in reachable states (a violation and its trace, compared), some
// guards disabling their action in some states.
func TestFlatQuantifiers(t *testing.T) {
	atoms := []string{
		"st[p] == CS", "st[p] != IDLE", "lv[p] < k", "lv[p] >= 1", "ok[p]", "not ok[p]", "lv[p] != lv[0]", "k <= lv[p]", "2 > lv[p]",
	}
	r := rand.New(rand.NewPCG(13, 17))
	pick := func(join string) string {
		var xs []string
		for range 1 + r.IntN(3) {
			xs = append(xs, atoms[r.IntN(len(atoms))])
		}
		return strings.Join(xs, join)
	}
	quant := func() string {
		q := []string{"forall", "exists"}[r.IntN(2)]
		join := []string{" and ", " or "}[r.IntN(2)]
		if q == "forall" && join == " or " && r.IntN(2) == 0 {
			join = " and " // the flat shape for a forall
		}
		return q + " p in P: " + pick(join)
	}
	compared := 0
	for n := range 40 {
		var b strings.Builder
		procHeader(&b, fmt.Sprintf("F%d", n), r)
		fmt.Fprintf(&b, "  action enter when st[i] == WAIT and (%s) { st[i] := CS  lv[i] := (lv[i] + 1) %% 3 }\n", quant())
		b.WriteString("  action leave when st[i] == CS { st[i] := IDLE  ok[i] := not ok[i] }\n")
		fmt.Fprintf(&b, "  action bump when k < 2 and not (%s) { k := k + 1 }\n}\n", quant())
		for i := range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "invariant I%d: %s\n", i, quant())
		}
		src := b.String()
		name := fmt.Sprintf("flat%d", n)
		m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatalf("%s does not check: %v\n%s", name, err, src)
		}
		if r := compare(t, name, m, Options{MaxStates: 40_000}); r != nil {
			compared++
		}
	}
	if compared < 30 {
		t.Errorf("%d specs compared: too few to test anything", compared)
	}
}

// procHeader writes the start of the specs of TestHoistedForalls and
// TestFlatQuantifiers: spec name, two or three processes W[i] over st,
// lv, ok and k, and W's first action.
func procHeader(b *strings.Builder, name string, r *rand.Rand) {
	fmt.Fprintf(b, "spec %s\ntype P = 0..%d\ntype S = {IDLE, WAIT, CS}\n", name, 1+r.IntN(2))
	b.WriteString("var st: [P]S\nvar lv: [P]0..2\nvar ok: [P]bool\nvar k: 0..2\n")
	b.WriteString("process W[i: P] {\n")
	b.WriteString("  action go when st[i] == IDLE { st[i] := WAIT }\n")
}

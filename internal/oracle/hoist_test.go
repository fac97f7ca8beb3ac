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
		name := fmt.Sprintf("hoist%d", n)
		m, p := compiled(t, name, b.String())
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
	pick := picker(r, atoms)
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

// TestWideVectors compares the engine with the oracle on random specs
// whose packed state is one word of 33 to 63 bits: the one-worker search
// then keeps each vector whole in its table slot without its index
// (machine.NewKeyStoreFor) and stores a batch of successors through its
// own loop (checker's flushKeyed). The specs are TestFlatQuantifiers'
// with a 40-bit variable that every action writes, and invariants that
// many reachable states break at several depths: a new state left
// unchecked, checked against the wrong parent or stored with the wrong
// key shows as a missed violation, a longer trace or another count.
func TestWideVectors(t *testing.T) {
	atoms := []string{
		"st[p] == CS", "st[p] != IDLE", "lv[p] < k", "lv[p] >= 1", "ok[p]", "not ok[p]", "lv[p] != lv[0]", "k <= lv[p]",
	}
	r := rand.New(rand.NewPCG(19, 23))
	pick := picker(r, atoms)
	compared, violated := 0, 0
	for n := range 40 {
		var b strings.Builder
		procHeader(&b, fmt.Sprintf("W%d", n), r)
		fmt.Fprintf(&b, "  action enter when st[i] == WAIT and (exists p in P: %s) { st[i] := CS  lv[i] := (lv[i] + 1) %% 3  big := 100000000000 * lv[i] + i }\n", pick(" or "))
		b.WriteString("  action leave when st[i] == CS { st[i] := IDLE  ok[i] := not ok[i]  big := big % 2 }\n")
		b.WriteString("  action bump when k < 2 { k := k + 1  big := 1099511627000 + k }\n}\n")
		b.WriteString("var big: 0..1099511627775\n")
		for i := range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "invariant I%d: (big %% %d != %d) or (forall p in P: %s)\n", i, 2+r.IntN(5), r.IntN(2), pick(" or "))
		}
		src := b.String()
		name := fmt.Sprintf("wide%d", n)
		m, prog := compiled(t, name, src)
		if !machine.NewKeyStoreFor(prog).Keyed() {
			t.Fatalf("%s: its states are not one word of 33 to 63 bits: the test no longer covers the keyed store\n%s", name, src)
		}
		if res := compare(t, name, m, Options{MaxStates: 40_000}); res != nil {
			compared++
			if res.Violation != nil {
				violated++
			}
		}
	}
	if compared < 30 || violated < 10 {
		t.Errorf("%d specs compared, %d of them violated: too few to test anything", compared, violated)
	}
}

// compiled parses and compiles the spec src named name; a spec error
// fails the test.
func compiled(t *testing.T, name, src string) (*spec.Model, *machine.Program) {
	t.Helper()
	m, err := spec.ParseFile(name+".wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatalf("%s does not check: %v\n%s", name, err, src)
	}
	p, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

// picker returns a function that joins one to three of atoms, drawn by
// r, with join.
func picker(r *rand.Rand, atoms []string) func(join string) string {
	return func(join string) string {
		var xs []string
		for range 1 + r.IntN(3) {
			xs = append(xs, atoms[r.IntN(len(atoms))])
		}
		return strings.Join(xs, join)
	}
}

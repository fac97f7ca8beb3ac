package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// symmetric writes a spec of the Symmetric shape: a small random spec with symmetric types: a family
// indexed by a symmetric type, arrays indexed by it, sets of it, stored
// identities, choose and quantifiers over it, a second symmetric type
// indexing a family and an array of sets, and independent processes;
// with failing, also an assert that can fail and an overflowing
// assignment (runtime errors).
func symmetric(r *rand.Rand, failing, loops bool) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	k := 2 + r.IntN(2)
	p("spec Random")
	p("const K = %d", k)
	p("type Id = symmetric K")
	p("var owner: Id")
	p("var flags: [Id]bool")
	p("var members: set of Id")
	p("var cnt: 0..2 = 0")
	p("var link: [Id]Id")
	p("var pair: record { x: Id, y: [Id]bool }")
	acts := []string{
		"action step when st < 2 { st := st + 1 }",
		"action reset when st == 2 { st := 0 }",
		"action grab when not flags[i] and card(members) < 2 { flags[i] := true\n members := members union {i} }",
		"action drop when flags[i] { flags[i] := false\n members := members minus {i} }",
		"action pick when st == 0 { choose j in Id where j != i { peer := j } }",
		"action own when owner != i and st == 1 { owner := i }",
		"action look when exists j in Id: flags[j] and j != i { seen := seen union {peer} }",
		"action linkit when link[i] != peer { link[i] := peer }",
		"action bump when cnt < 2 and st == 2 { cnt := cnt + 1 }",
		"action mark when st == 1 and not (i in seen) { seen := seen union {i} }",
		"action check when st == 2 and cnt == 2 { assert owner != i }",
		"action spill when st == 1 { cnt := cnt + 2 }",
		"action setpair when not pair.y[i] { pair.x := i\n pair.y[i] := true }",
		"action clearpair when pair.x == i { pair.y[peer] := false }",
	}
	if loops {
		acts = append(acts, loopActs(k)...)
		p("var q: seq[2] of Id")
		p("var firstq: Id")
		p("var found: bool")
		p("var tot: 0..2")
	}
	p("process worker[i: Id] {")
	p("  var st: 0..2 = 0")
	p("  var peer: Id")
	p("  var seen: set of Id")
	n := 0
	for _, a := range acts {
		failingAct := strings.HasPrefix(a, "action check") || strings.HasPrefix(a, "action spill")
		if failingAct && !failing {
			continue // drawing nothing: without Failing the spec is what it was before these actions
		}
		if r.IntN(3) == 0 {
			p("  %s", a)
			n++
		}
	}
	if n == 0 {
		p("  %s", acts[0])
	}
	p("}")
	if r.IntN(2) == 0 {
		p("type Tok = symmetric 2")
		p("var held: [Tok]set of Id")
		p("process holder[h: Tok] {")
		p("  var who: Id")
		p("  action take when card(held[h]) == 0 { choose j in Id { who := j\n held[h] := {j} } }")
		p("  action give when card(held[h]) > 0 { held[h] := {} }")
		p("}")
		if r.IntN(2) == 0 {
			p("invariant OneHolder: forall j in Id: (count t in Tok: j in held[t]) <= 1")
		}
	}
	if r.IntN(2) == 0 {
		p("process solo[s: Id] {")
		p("  var z: 0..2 = 0")
		p("  action inc when z < 2 { z := z + 1 }")
		p("  action dec when z == 2 and cnt == 0 { z := 0 }")
		p("}")
		if r.IntN(3) == 0 {
			p("invariant SoloLow: forall s in Id: solo[s].z < 2 or cnt < 2")
		}
	}
	if r.IntN(2) == 0 {
		p("process counter {")
		p("  action tick when cnt < 2 { cnt := cnt + 1 }")
		p("}")
	}
	if loops {
		for _, inv := range []string{
			"invariant QDistinct: len(q) < 2 or q[0] != q[1]",
			"invariant FirstQueued: not found or firstq in q",
			"invariant TotLen: tot <= len(q)",
		} {
			if r.IntN(3) == 0 {
				p("%s", inv)
			}
		}
	}
	invs := []string{
		fmt.Sprintf("invariant FewMembers: card(members) <= %d", 1+r.IntN(k)),
		"invariant FlagsDone: forall j in Id: worker[j].st < 2 or not flags[j]",
		"invariant OneDone: (count j in Id: worker[j].st == 2) <= 1",
		"invariant Links: forall j in Id: link[j] == j or worker[j].peer == link[j]",
		"invariant CntLow: cnt < 2",
		"invariant OwnerFlag: flags[owner] or card(members) == 0 or owner in members",
	}
	for _, inv := range invs {
		if r.IntN(4) == 0 {
			p("%s", inv)
		}
	}
	switch r.IntN(3) {
	case 0:
		p("terminal forall j in Id: worker[j].st == 2")
	case 1:
		p("terminal cnt == 2")
	}
	return b.String()
}

// loopActs are the worker actions of Config.Loops, for K identities.
// scan's for visits q in order and keeps the first identity other than
// i: its effect depends on the order, which is the sequence's (data
// that a permutation moves with the identities), never the identities'.
func loopActs(k int) []string {
	return []string{
		"action enq when len(q) < 2 and not (i in q) { q := append(q, i) }",
		"action deq when len(q) > 0 and head(q) == i { q := tail(q) }",
		"action scan when len(q) > 0 { found := false\n for x in q { if not found and x != i { firstq := x\n found := true } } }",
		"action sweep { for v in 0..1 { if v < len(q) { if q[v] == i { seen := seen union {i} } } } }",
		"action tally { tot := sum v in 0..1: (if v < len(q) then 1 else 0) }",
		"action clear when found { flags := [" + strings.TrimSuffix(strings.Repeat("false, ", k), ", ") + "]\n found := false }",
	}
}

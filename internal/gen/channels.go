package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// channels writes a [Channels] spec: a family node[p] (indexed by a
// symmetric type or a range) and a process ctl whose actions send and
// receive on a buffered channel q, a rendezvous channel rv and an array
// box of one-place channels indexed like the family (an extension), each
// operation with a random guard and body, and receives of constants.
func channels(r *rand.Rand) string {
	var b strings.Builder
	acts := 0
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	msgs := []string{"m0", "m1", "m2"}
	msg := func() string { return msgs[r.IntN(len(msgs))] }
	sym := r.IntN(2) == 0
	p("spec Chans")
	p("type Msg = {m0, m1, m2}")
	if sym {
		p("type Id = symmetric 2")
	} else {
		p("type Id = 0..1")
	}
	p("var q: chan[%d] of Msg", 1+r.IntN(2))
	p("var rv: chan[0] of Msg")
	p("var box: [Id]chan[1] of Msg")
	p("var g: Msg")
	p("var cnt: 0..3")
	p("var tgt: Id")
	guard := func(local bool) string {
		gs := []string{"cnt < 2", "g == " + msg(), "g != " + msg(), "len(q) > 0", "len(q) == 0", "cnt > 0"}
		if local {
			gs = append(gs, "st == 0", "st != 2", "got == "+msg())
		}
		return gs[r.IntN(len(gs))]
	}
	value := func(local bool) string {
		vs := []string{msg(), "g"}
		if local {
			vs = append(vs, "got")
		}
		return vs[r.IntN(len(vs))]
	}
	stmts := func(local bool, self string) {
		for range r.IntN(3) {
			ss := []string{"cnt := if cnt < 3 then cnt + 1 else 0", "g := " + value(local), "cnt := 0"}
			if local {
				ss = append(ss, "st := (st + 1) % 3", "got := "+value(local), "tgt := "+self)
			}
			p("    %s", ss[r.IntN(len(ss))])
		}
	}
	op := func(local bool, self string) {
		into := "g"
		if local && r.IntN(2) == 0 {
			into = "got"
		}
		ops := []string{
			"q ! " + value(local), "q ? " + into, "q ? " + msg(),
			"rv ! " + value(local), "box[tgt] ! " + value(local), "",
		}
		if local {
			// ctl only sends on rv: one process cannot meet itself
			ops = append(ops, "rv ? "+into, "rv ? "+msg(), "box["+self+"] ? "+into, "box["+self+"] ! "+value(local))
		}
		o := ops[r.IntN(len(ops))]
		acts++
		if r.IntN(3) > 0 {
			p("  action a%d when %s {", acts, guard(local))
		} else {
			p("  action a%d {", acts)
		}
		if o != "" {
			p("    %s", o)
		}
		stmts(local, self)
		p("  }")
	}
	p("process node[n: Id] {")
	p("  var st: 0..2")
	p("  var got: Msg")
	for range 3 + r.IntN(3) {
		op(true, "n")
	}
	p("}")
	p("process ctl {")
	for range 2 + r.IntN(2) {
		op(false, "")
	}
	p("}")
	if r.IntN(2) == 0 {
		p("invariant Inv: %s or %s", guard(false), guard(false))
	}
	p("terminal true")
	return b.String()
}

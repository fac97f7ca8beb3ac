package machine

import (
	"fmt"
	"slices"
)

// Compiled mode: Go code generated for one model (nativegen.go) and built
// into a binary of its own (wrapcheck check --compile) takes the place of
// the closures of the units it covers. Each model's code is registered under
// its key, the hash of the generated source itself, so a binary can only use
// code generated from the very model it was given: Compile generates the
// source again, hashes it and looks the key up in the table that the build
// tag wrapcheck_native links in (native_table.go when the tag is absent: no
// code, and nothing is generated). A unit the generator does not support
// (exact integers, compound quantifier domains, lets in expressions, ...)
// keeps its closure, so every model runs.

// nativeProg is the generated code of one model: nil entries keep their
// closures.
type nativeProg struct {
	unpack func(dst []int64, src []uint64)
	repack func(m *Machine, dst, parent State) uint64          // RepackHash; nil: the loop
	cand   func(m *Machine) uint64                             // Candidates of one word; nil: the loop
	expand func(m *Machine, from int) int                      // RunCandidates; nil: the loop
	check  func(m *Machine, vec, parent State, sel uint64) int // CheckPacked; nil: none
	guards []evalFn
	bodies []stepFn
	runs   []func(m *Machine) bool // per action: the whole of runAction
	conjs  [][]evalFn              // per invariant, per conjunct
	// terminal is the terminal predicate (nil: none, or its closure).
	terminal evalFn
	sites    []site // the failure sites the code refers to by index
}

// useNative wires the generated code registered for p's model, if any.
func (p *Program) useNative() {
	if !nativeBuilt {
		return
	}
	g, err := generateNative(p)
	if err != nil {
		return
	}
	nat := nativeLookup(g.key)
	if nat == nil {
		return
	}
	if len(nat.guards) != len(p.actions) || len(nat.bodies) != len(p.actions) || len(nat.runs) != len(p.actions) || len(nat.conjs) != len(p.invs) {
		return
	}
	for i := range p.invs {
		if len(nat.conjs[i]) != len(p.invs[i].conjs) {
			return
		}
	}
	p.nsites = nat.sites
	if nat.unpack != nil {
		p.lay.nat = nat.unpack
		p.nativeUnits++
	}
	if nat.repack != nil {
		p.lay.natRepack = nat.repack
		p.lay.repack = nat.repack
	}
	p.natCheck = nat.check
	if p.candWords == 1 {
		p.natCand = nat.cand
		p.natExpand = nat.expand
	}
	for i := range p.actions {
		if f := nat.guards[i]; f != nil && p.actions[i].guard != nil {
			p.actions[i].guard = f
			p.nativeUnits++
		}
		if f := nat.bodies[i]; f != nil {
			p.actions[i].body = f
			p.nativeUnits++
		}
		p.actions[i].run = nat.runs[i]
	}
	for i := range p.invs {
		for j, f := range nat.conjs[i] {
			if f != nil {
				p.invs[i].conjs[j].eval = f
				p.nativeUnits++
			}
		}
	}
	if t := nat.terminal; t != nil && p.terminal != nil {
		p.terminal = terminalOf(t)
		p.nativeUnits++
	}
}

// HasNativeExpand reports whether [Machine.RunCandidates] runs generated
// code (a binary built by `check --compile` for this model), where a
// search calls it rather than RunAction per candidate.
func (p *Program) HasNativeExpand() bool { return p.natExpand != nil }

// HasNativeCheck reports whether [Machine.CheckPacked] runs (generated
// code, in a binary built by `check --compile` for this model).
func (p *Program) HasNativeCheck() bool { return p.natCheck != nil }

// Native reports how many units of the program (the layout's unpacking,
// each guard, action body and invariant conjunct, the terminal predicate) run generated code, and
// how many units there are. It is 0 of n outside a binary built by
// `check --compile` for this model.
func (p *Program) Native() (native, units int) {
	units = 1
	for _, a := range p.actions {
		units++
		if a.guard != nil {
			units++
		}
	}
	for _, inv := range p.invs {
		units += len(inv.conjs)
	}
	if p.terminal != nil {
		units++
	}
	return p.nativeUnits, units
}

// CheckNative compares the generated parts of the search (RepackHash and
// Candidates, where they are generated) with the generic ones on rounds
// random states of the layout, each with a random trail of writes (state
// slots and frame slots, a slot written more than once), and returns an
// error naming the first difference. Without generated parts it returns
// nil. The random states come from seed, so a failure can be repeated.
func (p *Program) CheckNative(seed uint64, rounds int) error {
	if p.lay.natRepack == nil && p.natCand == nil && p.natCheck == nil {
		return nil
	}
	m := p.NewMachine()
	rnd := func() uint64 { // splitmix64
		seed += 0x9e3779b97f4a7c15
		return Mix(seed)
	}
	value := func(off int) int64 {
		d := &p.dom[off]
		if d.set {
			return int64(rnd() & d.mask)
		}
		if d.hi < d.lo {
			return d.lo
		}
		return d.lo + int64(rnd()%uint64(d.hi-d.lo+1))
	}
	words := p.lay.words
	parent := make(State, words)
	got, want := make(State, words), make(State, words)
	mem := m.mem[:p.n]
	for r := 0; r < rounds; r++ {
		for i := range mem {
			mem[i] = value(i)
		}
		p.lay.pack(parent, mem)
		m.heldOK = false
		m.trail = m.trail[:0]
		if p.natCheck != nil {
			if err := p.checkPackedAgrees(m, parent, value, rnd); err != nil {
				return err
			}
		}
		if f := p.natCand; f != nil {
			if g, c := f(m), m.candTable(); g != c {
				return fmt.Errorf("generated Candidates %#x, tables %#x, at %v", g, c, mem)
			}
		}
		if p.lay.natRepack == nil {
			continue
		}
		for k := int(rnd() % 6); k > 0 && p.n > 0; k-- {
			if off := int(rnd() % uint64(len(m.mem))); off >= p.n {
				m.write(off, m.mem[off]) // a frame slot: not in the vector
			} else {
				m.write(off, value(off))
			}
		}
		gh := p.lay.natRepack(m, got, parent)
		wh := m.repackHash(want, parent)
		if !slices.Equal(got, want) || gh != wh || wh != Hash(want) {
			return fmt.Errorf("generated RepackHash %#x (hash %#x), the loop %#x (hash %#x), parent %#x, trail %v", got, gh, want, wh, parent, m.trail)
		}
		m.undo(0)
	}
	return nil
}

// checkPackedAgrees compares the generated CheckPacked with the
// conjuncts evaluated over the check area, as the search's checkState
// does, for parent and a state that differs from it in a few random
// slots, under a random selection of the conjuncts: the same first false
// or failing conjunct, and the same failure.
func (p *Program) checkPackedAgrees(m *Machine, parent State, value func(off int) int64, rnd func() uint64) error {
	n := p.n
	cs := m.mem[p.checkOff : p.checkOff+n]
	p.lay.unpack(cs, parent)
	old := slices.Clone(cs)
	for k := int(rnd() % 4); k >= 0 && n > 0; k-- {
		off := int(rnd() % uint64(n))
		cs[off] = value(off)
	}
	vec := make(State, p.lay.words)
	p.lay.pack(vec, cs)
	sel := rnd() | rnd() // mostly set
	want := m.checkArea(old, sel)
	wantOK := m.err == nil
	var wantErr *ExecError
	if !wantOK {
		wantErr = m.PredFailure()
	}
	copy(cs, old) // CheckPacked must not need the check area
	got, gotOK := m.CheckPacked(vec, parent, sel)
	var gotErr *ExecError
	if !gotOK {
		gotErr = m.PredFailure()
	}
	if got != want || gotOK != wantOK || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		return fmt.Errorf("generated CheckPacked %d (ok %t, %v), the conjuncts %d (ok %t, %v), parent %#x, state %#x, selection %#x", got, gotOK, gotErr, want, wantOK, wantErr, parent, vec, sel)
	}
	return nil
}

// checkArea is CheckPacked over the check area, which holds the new state
// unpacked, old being its parent unpacked: the conjuncts in sel that read
// a slot in which the two differ, evaluated in order as the search's
// checkState evaluates them. It returns the number of the first that is
// false or fails (the failure left pending), or -1.
func (m *Machine) checkArea(old []int64, sel uint64) int {
	p := m.p
	cs := m.mem[p.checkOff : p.checkOff+p.n]
	k := 0
	for i := range p.invs {
		for j := range p.invs[i].conjs {
			c := &p.invs[i].conjs[j]
			changed := false
			for _, sl := range c.slots {
				changed = changed || cs[sl] != old[sl]
			}
			if sel>>uint(k)&1 != 0 && changed {
				if v := c.eval(m); m.err != nil || v == 0 {
					return k
				}
			}
			k++
		}
	}
	return -1
}

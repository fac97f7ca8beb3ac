package machine

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
	guards []evalFn
	bodies []stepFn
	runs   []func(m *Machine) bool // per action: the whole of runAction
	conjs  [][]evalFn              // per invariant, per conjunct
	sites  []site                  // the failure sites the code refers to by index
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
}

// Native reports how many units of the program (the layout's unpacking,
// each guard, action body and invariant conjunct) run generated code, and
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
	return p.nativeUnits, units
}

package machine

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Statements are compiled once, in continuation-passing style: a
// statement list becomes a stepFn that runs its first statement and then
// the stepFn of the rest. A branching statement (ask, choose) calls its
// continuation once per branch and undoes the branch's writes (the undo
// trail) before the next; the last continuation of an action is the
// machine's leaf, which receives each successor in mem[:n]. A failure
// (Machine.raise) ends its branch only: the branching statement resumes
// with the next branch. Nothing is allocated while running.

type stepFn func(m *Machine)

// block compiles stmts followed by k.
func (c *compiler) block(stmts []*spec.Stmt, cx frameCtx, k stepFn) stepFn {
	for i := len(stmts) - 1; i >= 0; i-- {
		k = c.stmt(stmts[i], cx, k)
	}
	return k
}

func (c *compiler) assignSite(pos spec.Position) *site {
	return &site{kind: RuntimeError, pos: pos, assign: true}
}

// store compiles writing the value of v into the location r (width w),
// the target (nil for a let's first binding). It returns a function that
// reports false when the write failed (the failure is then raised).
func (c *compiler) store(target *spec.Expr, r ref, v *spec.Expr, cx frameCtx, pos spec.Position) func(m *Machine) bool {
	st := c.assignSite(pos)
	fits := c.frameFits(target, pos)
	if isScalar(v.Type) {
		if r.dyn == nil && fits == nil && v.Op == spec.OpConst && !c.wide(v, cx) && c.p.inDomain(r.static, v.Val) {
			// A constant of the target's domain at a static offset: the
			// write cannot fail, so it needs neither the value's closure
			// nor set's range test.
			off, k := r.static, v.Val
			return func(m *Machine) bool {
				m.write(off, k)
				return true
			}
		}
		val := c.scalar(v, cx)
		if r.dyn == nil && v.Op == spec.OpAdd && v.Args[1].Op == spec.OpConst && !c.wide(v, cx) {
			if src, ok := staticOff(v.Args[0], cx); ok {
				// `x := y + k`, y at a static offset: val is arith's
				// `mem[src] + k`, which cannot fail; inlined here.
				off, k := r.static, v.Args[1].Val
				return func(m *Machine) bool {
					x := m.mem[src] + k
					return (fits == nil || fits(m, 0, x)) && m.set(off, x, st)
				}
			}
		}
		if r.dyn == nil {
			off := r.static
			return func(m *Machine) bool {
				x := val(m)
				if m.err != nil {
					m.raise()
					return false
				}
				return (fits == nil || fits(m, 0, x)) && m.set(off, x, st)
			}
		}
		return func(m *Machine) bool {
			x := val(m)
			off := r.dyn(m)
			if m.err != nil {
				m.raise()
				return false
			}
			return (fits == nil || fits(m, 0, x)) && m.set(off, x, st)
		}
	}
	w := width(v.Type)
	src := c.ref(v, cx)
	return func(m *Machine) bool {
		s := src.at(m)
		off := r.at(m)
		if m.err != nil {
			m.raise()
			return false
		}
		if s == off {
			return true
		}
		for i := 0; i < w; i++ {
			if fits != nil && !fits(m, i, m.mem[s+i]) {
				return false
			}
		}
		for i := 0; i < w; i++ {
			if !m.set(off+i, m.mem[s+i], st) {
				return false
			}
		}
		return true
	}
}

// fusedStore compiles `target := v` followed by k into one closure for
// the commonest shapes: a scalar v that is not wide, into a state slot
// or a frame slot without a range (frameFits nil) at a static offset or
// at a[i] (a and i at static offsets, see slotIndex), v a constant, a
// slot plus a constant (the target's own value, for a[i]), or any other
// expression. The domain test of Machine.set is made inline, over bounds known at compile time: the target's domain, or no bounds
// when v's bounds lie inside the domain of every slot the target may be.
// It reports false for any other shape (store then compiles it), and
// for a target whose slots need different tests. Failures are those of
// store: the value's first, then the index's, then the domain's. Each
// shape is a closure of its own, written out, and not one closure
// with tests on the shape: these run once per assignment per
// transition, and a helper holding the domain test is not inlined
// (failAssign's call is over the inliner's budget), so only the write
// itself is shared (Machine.write).
func (c *compiler) fusedStore(target, v *spec.Expr, cx frameCtx, pos spec.Position, k stepFn) (stepFn, bool) {
	if !isScalar(v.Type) || c.wide(v, cx) || c.frameFits(target, pos) != nil {
		return nil, false
	}
	st := c.assignSite(pos)
	var plusK int64 // v is a slot + plusK
	plus := v.Op == spec.OpAdd && v.Args[1].Op == spec.OpConst && v.Args[1].Big == nil
	if plus {
		plusK = v.Args[1].Val
	}
	if off, ok := staticOff(target, cx); ok {
		if v.Op == spec.OpConst {
			x := v.Val
			if !c.p.inDomain(off, x) {
				return nil, false // store's path: the write fails
			}
			return func(m *Machine) {
				m.write(off, x)
				k(m)
			}, true
		}
		lo, hi, ok := c.putBounds(v, cx, []int{off})
		if !ok {
			return nil, false
		}
		if plus {
			if src, ok := staticOff(v.Args[0], cx); ok {
				return func(m *Machine) {
					x := m.mem[src] + plusK
					if x < lo || x > hi {
						m.failAssign(st, off, x)
						return
					}
					m.write(off, x)
					k(m)
				}, true
			}
		}
		val := c.scalar(v, cx)
		return func(m *Machine) {
			x := val(m)
			if m.err != nil {
				m.raise()
				return
			}
			if x < lo || x > hi {
				m.failAssign(st, off, x)
				return
			}
			m.write(off, x)
			k(m)
		}, true
	}
	t, ok := c.slotIndex(target, cx)
	if !ok {
		return nil, false
	}
	b, ix, add, ilo, size, ew, ist := t.base, t.ix, t.add, t.lo, t.size, t.ew, t.st
	offs := make([]int, size)
	for i := range offs {
		offs[i] = b + i*int(ew)
	}
	lo, hi, ok := c.putBounds(v, cx, offs)
	if !ok {
		return nil, false
	}
	if v.Op == spec.OpConst {
		x := v.Val
		return func(m *Machine) {
			iv := m.mem[ix]
			i := iv - ilo
			if uint64(i) >= uint64(size) {
				m.fail(ist, iv+add)
				m.raise()
				return
			}
			off := b + int(i*ew)
			if x < lo || x > hi {
				m.failAssign(st, off, x)
				return
			}
			m.write(off, x)
			k(m)
		}, true
	}
	if plus {
		if s, ok := c.slotIndex(v.Args[0], cx); ok && s.base == b && s.ix == ix && s.add == add && s.lo == ilo && s.size == size && s.ew == ew {
			// a[i] := a[i] + k: the value's load fails first (its site).
			vst := s.st
			return func(m *Machine) {
				iv := m.mem[ix]
				i := iv - ilo
				if uint64(i) >= uint64(size) {
					m.fail(vst, iv+add)
					m.raise()
					return
				}
				off := b + int(i*ew)
				x := m.mem[off] + plusK
				if x < lo || x > hi {
					m.failAssign(st, off, x)
					return
				}
				m.write(off, x)
				k(m)
			}, true
		}
	}
	val := c.scalar(v, cx)
	return func(m *Machine) {
		x := val(m)
		iv := m.mem[ix]
		i := iv - ilo
		if uint64(i) >= uint64(size) {
			m.fail(ist, iv+add)
		}
		if m.err != nil {
			m.raise()
			return
		}
		off := b + int(i*ew)
		if x < lo || x > hi {
			m.failAssign(st, off, x)
			return
		}
		m.write(off, x)
		k(m)
	}, true
}

// putBounds returns the bounds of the inline domain test of a store of v at one of
// the mem offsets offs: none (the int64 range) when v's bounds lie in
// the domain of every one of them, else their common domain; ok is false
// when they have none (set slots, or slots of different domains).
func (c *compiler) putBounds(v *spec.Expr, cx frameCtx, offs []int) (lo, hi int64, ok bool) {
	if c.inDomains(c.bounds(v, cx), offs) {
		return math.MinInt64, math.MaxInt64, true
	}
	for i, off := range offs {
		if off >= c.p.n {
			return 0, 0, false
		}
		d := &c.p.dom[off]
		if d.set || i > 0 && (d.lo != lo || d.hi != hi) {
			return 0, 0, false
		}
		lo, hi = d.lo, d.hi
	}
	return lo, hi, len(offs) > 0
}

// inDomains reports whether every value of iv passes set's range test at
// each of the mem offsets offs (a state slot of a set type never does:
// its test is on the bits).
func (c *compiler) inDomains(iv interval, offs []int) bool {
	if !iv.fits() {
		return false
	}
	lo, hi := iv.lo.Int64(), iv.hi.Int64()
	for _, off := range offs {
		if off >= c.p.n {
			continue
		}
		d := &c.p.dom[off]
		if d.set || lo < d.lo || hi > d.hi {
			return false
		}
	}
	return true
}

// frameFits returns, for an assignment target in the frame (a let
// binding or a field or element of one), a function that reports whether
// v fits the range of the target's i-th scalar, raising a runtime error
// when it does not: a let of a record or array keeps its components'
// ranges, and the language makes storing a value outside a range a runtime
// error wherever it is stored (m.set checks the state's slots only). It
// returns nil for a target in the state, and for one without a bounded
// scalar (a let of an integer is unbounded).
func (c *compiler) frameFits(target *spec.Expr, pos spec.Position) func(m *Machine, i int, v int64) bool {
	root := target
	for root != nil && (root.Op == spec.OpField || root.Op == spec.OpIndex) {
		root = root.Args[0]
	}
	if root == nil || root.Op != spec.OpLocal {
		return nil
	}
	type bound struct {
		lo, hi, mask int64
		set, check   bool
		st           *site
	}
	var bs []bound
	var leaves func(t *spec.Type)
	leaves = func(t *spec.Type) {
		switch t.Kind {
		case spec.ArrayKind:
			for range t.Index.Size() {
				leaves(t.Elem)
			}
		case spec.RecordKind:
			for _, f := range t.Fields {
				leaves(f.Type)
			}
		case spec.RangeKind:
			bs = append(bs, bound{lo: t.Lo, hi: t.Hi, check: true,
				st: c.site(RuntimeError, pos, fmt.Sprintf("value %%d out of range %d..%d of a let binding", t.Lo, t.Hi), true)})
		case spec.SetKind:
			_, size := setDomain(t)
			mask := int64(-1)
			if size < 64 {
				mask = 1<<uint(size) - 1
			}
			bs = append(bs, bound{mask: mask, set: true, check: true,
				st: c.site(RuntimeError, pos, "set value %#x out of range of a let binding", true)})
		default:
			bs = append(bs, bound{}) // bool, enum, identity: every value fits; int: unbounded
		}
	}
	leaves(target.Type)
	bounded := false
	for _, b := range bs {
		bounded = bounded || b.check
	}
	if !bounded {
		return nil
	}
	return func(m *Machine, i int, v int64) bool {
		b := &bs[i]
		if !b.check || b.set && v&^b.mask == 0 || !b.set && v >= b.lo && v <= b.hi {
			return true
		}
		m.fail(b.st, v)
		m.raise()
		return false
	}
}

func (c *compiler) stmt(s *spec.Stmt, cx frameCtx, k stepFn) stepFn {
	switch s.Op {
	case spec.SAssign:
		if t := s.Target; t.Op == spec.OpLocal && c.isBigSlot(cx.frame+t.Slot) {
			w := c.bigStore(s.Value, cx, cx.frame+t.Slot, -1)
			return func(m *Machine) {
				w(m)
				if m.err != nil {
					m.raise()
					return
				}
				k(m)
			}
		}
		if f, ok := c.fusedStore(s.Target, s.Value, cx, s.Pos, k); ok {
			return f
		}
		st := c.store(s.Target, c.ref(s.Target, cx), s.Value, cx, s.Pos)
		return func(m *Machine) {
			if st(m) {
				k(m)
			}
		}
	case spec.SLet:
		if off := cx.frame + s.Slot; c.isBigSlot(off) {
			w := c.bigStore(s.Value, cx, off, -1)
			return func(m *Machine) {
				w(m)
				if m.err != nil {
					m.raise()
					return
				}
				k(m)
			}
		}
		st := c.store(nil, ref{static: cx.frame + s.Slot}, s.Value, cx, s.Pos)
		return func(m *Machine) {
			if st(m) {
				k(m)
			}
		}
	case spec.SSkip:
		return k
	case spec.SAssert:
		cond := c.scalar(s.Cond, cx)
		msg := s.Msg
		if msg == "" {
			msg = "assertion failed"
		}
		st := &site{kind: Assertion, pos: s.Pos, msg: msg}
		return func(m *Machine) {
			ok := cond(m)
			if m.err == nil && ok == 0 {
				m.fail(st, 0)
			}
			if m.err != nil {
				m.raise()
				return
			}
			k(m)
		}
	case spec.SIf:
		cond := c.scalar(s.Cond, cx)
		then := c.block(s.Body, cx, k)
		els := c.block(s.Else, cx, k)
		return func(m *Machine) {
			v := cond(m)
			if m.err != nil {
				m.raise()
				return
			}
			if v != 0 {
				then(m)
			} else {
				els(m)
			}
		}
	case spec.SMatch:
		return c.match(s, cx, k)
	case spec.SChoose:
		return c.choose(s, cx, k)
	case spec.SAsk:
		return c.ask(s, cx, k)
	}
	c.fail(s.Pos, "unknown statement %d", s.Op)
	return k
}

// match compiles a match. The value is always evaluated (its runtime
// errors count even when only the else arm is left). A case value selects
// the body of the first case that lists it; any other value runs the else
// arm, or nothing when there is none (an exhaustive match). Values are
// looked up in a table over lo..hi when it is dense (enum and bool values
// from the front end always are, and the table is no larger than their
// type), else by binary search, so that no shape of match fails to compile.
func (c *compiler) match(s *spec.Stmt, cx frameCtx, k stepFn) stepFn {
	val := c.scalar(s.Value, cx)
	def := k
	if s.HasElse {
		def = c.block(s.Else, cx, k)
	}
	var vals []int64
	var bodies []stepFn
	seen := map[int64]bool{}
	for _, cs := range s.Cases {
		body := c.block(cs.Body, cx, k)
		for _, v := range cs.Values {
			if !seen[v] {
				seen[v] = true
				vals = append(vals, v)
				bodies = append(bodies, body)
			}
		}
	}
	if len(vals) == 0 {
		return func(m *Machine) {
			val(m)
			if m.err != nil {
				m.raise()
				return
			}
			def(m)
		}
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	if uint64(hi)-uint64(lo) < uint64(4*len(vals)+64) {
		table := make([]stepFn, hi-lo+1)
		for i := range table {
			table[i] = def
		}
		for i, v := range vals {
			table[v-lo] = bodies[i]
		}
		return func(m *Machine) {
			v := val(m)
			if m.err != nil {
				m.raise()
				return
			}
			if v < lo || v > hi {
				def(m)
				return
			}
			table[v-lo](m)
		}
	}
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(vals[a], vals[b]) })
	sorted := make([]int64, len(vals))
	arms := make([]stepFn, len(vals))
	for i, j := range order {
		sorted[i], arms[i] = vals[j], bodies[j]
	}
	return func(m *Machine) {
		v := val(m)
		if m.err != nil {
			m.raise()
			return
		}
		if i, ok := slices.BinarySearch(sorted, v); ok {
			arms[i](m)
			return
		}
		def(m)
	}
}

func (c *compiler) choose(s *spec.Stmt, cx frameCtx, k stepFn) stepFn {
	off := cx.frame + s.Slot
	lo, hi := int64(0), int64(1)
	leaves := [][2]int64{{0, 1}}
	if s.Dom != nil {
		var ok bool
		if leaves, ok = spec.DomainLeaves(s.Dom); !ok || len(leaves) == 0 {
			c.fail(s.Pos, "choose over %s", s.Dom.Kind)
			return k
		}
		lo, hi = leaves[0][0], leaves[0][1]
	}
	var cond evalFn
	if s.Cond != nil {
		cond = c.scalar(s.Cond, cx)
	}
	body := c.block(s.Body, cx, k)
	if len(leaves) > 1 {
		return c.chooseValues(off, leaves, cond, body)
	}
	return func(m *Machine) {
		for v := lo; v <= hi; v++ {
			if m.tick() {
				m.raise() // the branches not taken are unknown: the call reports the interruption
				m.resume()
				return
			}
			mark := len(m.trail)
			m.set(off, v, nil)
			if cond != nil {
				ok := cond(m)
				if m.err != nil {
					m.raise() // this value's branch fails; the others go on
					m.undo(mark)
					m.resume()
					continue
				}
				if ok == 0 {
					m.undo(mark)
					continue
				}
			}
			if m.branching {
				m.pushChoice(off, 1)
				body(m)
				m.branches = m.branches[:len(m.branches)-1]
			} else {
				body(m)
			}
			m.undo(mark)
			m.resume()
		}
	}
}

// chooseValues compiles a choose over a set, array or record type: one
// branch per value, enumerated in the frame slots from off (the last
// slot fastest), the current value kept in scratch memory.
func (c *compiler) chooseValues(off int, leaves [][2]int64, cond evalFn, body stepFn) stepFn {
	n := len(leaves)
	cur := c.scratch(n)
	return func(m *Machine) {
		vals := m.mem[cur : cur+n]
		for i := range leaves {
			vals[i] = leaves[i][0]
		}
		for {
			mark := len(m.trail)
			for i := 0; i < n; i++ {
				m.set(off+i, m.mem[cur+i], nil)
			}
			ok := int64(1)
			if cond != nil {
				ok = cond(m)
				if m.err != nil {
					m.raise() // this value's branch fails; the others go on
					ok = 0
				}
			}
			if ok != 0 && m.branching {
				m.pushChoice(off, n)
				body(m)
				m.branches = m.branches[:len(m.branches)-1]
			} else if ok != 0 {
				body(m)
			}
			m.undo(mark)
			m.resume()
			if !spec.NextValue(m.mem[cur:cur+n], leaves) {
				return
			}
		}
	}
}

// scalarDomains lists the value range of each scalar slot of a type, in
// slot order (a set: every mask).
func scalarDomains(t *spec.Type, out [][2]int64) [][2]int64 {
	switch t.Kind {
	case spec.ArrayKind:
		n := t.Index.Size()
		for i := int64(0); i < n; i++ {
			out = scalarDomains(t.Elem, out)
		}
		return out
	case spec.RecordKind:
		for _, f := range t.Fields {
			out = scalarDomains(f.Type, out)
		}
		return out
	case spec.SetKind:
		_, size := setDomain(t)
		hi := int64(-1)
		if size < 63 {
			hi = 1<<uint(size) - 1
		} else {
			hi = 1<<63 - 1
		}
		return append(out, [2]int64{0, hi})
	case spec.BoolKind:
		return append(out, [2]int64{0, 1})
	}
	return append(out, [2]int64{t.Lo, t.Hi})
}

func (c *compiler) ask(s *spec.Stmt, cx frameCtx, k stepFn) stepFn {
	p := c.p
	if s.Agent < 0 || s.Agent >= len(p.Model.Agents) {
		c.fail(s.Pos, "ask of unknown agent %d", s.Agent)
		return k
	}
	ag := p.Model.Agents[s.Agent]
	base := p.agentOff[s.Agent]
	agent := s.Agent
	type param struct {
		scr, dst, w int
		v           evalFn
		r           ref
	}
	params := make([]param, len(s.Args))
	for i, a := range s.Args {
		w := width(a.Type)
		pa := param{scr: c.scratch(w), w: w}
		if i < len(ag.ParamSlots) {
			pa.dst = base + ag.ParamSlots[i]
		}
		if isScalar(a.Type) {
			pa.v = c.scalar(a, cx)
		} else {
			pa.r = c.ref(a, cx)
		}
		params[i] = pa
	}
	doms := scalarDomains(ag.Result, nil)
	w := len(doms)
	ans := c.scratch(w)
	res := base + ag.ResultSlot
	var assume evalFn
	if ag.Assume != nil {
		// The assumption is compiled for this call: its parameters have
		// the bounds of these arguments (they are not range checked).
		fixed := c.askBounds(s, ag, cx, base, res)
		acx := frameCtx{state: 0, frame: base}
		c.analyseNested(acx, fixed, ag.Assume, func() { assume = c.scalar(ag.Assume, acx) })
	}
	var target ref
	if s.Target != nil {
		target = c.ref(s.Target, cx)
	} else {
		target = ref{static: cx.frame + s.Slot}
	}
	st := c.assignSite(s.Pos)
	fits := c.frameFits(s.Target, s.Pos)
	return func(m *Machine) {
		mem := m.mem
		for i := range params {
			pa := &params[i]
			if pa.v != nil {
				mem[pa.scr] = pa.v(m)
			} else {
				src := pa.r.at(m)
				copy(mem[pa.scr:pa.scr+pa.w], mem[src:src+pa.w])
			}
		}
		if m.err != nil {
			m.raise()
			return
		}
		for i := 0; i < w; i++ {
			mem[ans+i] = doms[i][0]
		}
		for {
			if m.tick() {
				m.raise()
				m.resume()
				return
			}
			ok := true
			if assume != nil {
				for i := range params {
					pa := &params[i]
					copy(mem[pa.dst:pa.dst+pa.w], mem[pa.scr:pa.scr+pa.w])
				}
				copy(mem[res:res+w], mem[ans:ans+w])
				ok = assume(m) != 0
				if m.err != nil {
					m.raise() // this answer's branch fails; the others go on
					m.resume()
					ok = false
				}
			}
			if ok {
				mark := len(m.trail)
				t := target.at(m)
				done := true
				if m.err != nil {
					m.raise()
					done = false
				}
				for i := 0; i < w && fits != nil && done; i++ {
					if !fits(m, i, mem[ans+i]) {
						done = false
						break
					}
				}
				for i := 0; i < w && done; i++ {
					if !m.set(t+i, mem[ans+i], st) {
						done = false
						break
					}
				}
				if done {
					nb := len(m.branches)
					if m.branching {
						b := Branch{Agent: agent, Value: append([]int64(nil), mem[ans:ans+w]...)}
						for i := range params {
							pa := &params[i]
							b.Args = append(b.Args, mem[pa.scr:pa.scr+pa.w]...)
						}
						m.branches = append(m.branches, b)
					}
					if m.record {
						n := m.pushAnswer(agent, mem[ans:ans+w])
						k(m)
						m.popAnswer(n)
					} else {
						k(m)
					}
					m.branches = m.branches[:nb]
				}
				m.undo(mark)
				m.resume()
			}
			i := w - 1
			for ; i >= 0; i-- {
				if mem[ans+i] < doms[i][1] {
					mem[ans+i]++
					break
				}
				mem[ans+i] = doms[i][0]
			}
			if i < 0 {
				return
			}
		}
	}
}

// askBounds gives the bounds an agent's assumption is analysed with for
// one ask s: its parameters (frame slots from base) have the bounds of
// s's scalar arguments, its result slot res those of the answer's type.
func (c *compiler) askBounds(s *spec.Stmt, ag *spec.Agent, cx frameCtx, base, res int) map[int]interval {
	fixed := map[int]interval{}
	for i, a := range s.Args {
		if i < len(ag.ParamSlots) && isScalar(a.Type) {
			fixed[base+ag.ParamSlots[i]] = c.bounds(a, cx).clamp()
		}
	}
	if iv, ok := typeBounds(ag.Result); ok {
		fixed[res] = iv
	}
	return fixed
}

// actionParts simplifies an action's body and folds its guard (nil
// without one), then runs the interval analysis over both in the action
// frame act, as the closures and the generated code both compile them.
func (c *compiler) actionParts(a *spec.Action, act frameCtx) ([]*spec.Stmt, *spec.Expr) {
	body := simplifyStmts(a.Body)
	var guard *spec.Expr
	if a.Guard != nil {
		guard = spec.Fold(a.Guard)
	}
	c.analyse(act, nil, body, guard)
	return body, guard
}

// invariantParts folds an invariant and its antecedent (nil without
// one), then runs the interval analysis over both in the check frame
// chk, as the closures and the generated code both compile them.
func (c *compiler) invariantParts(inv *spec.Invariant, chk frameCtx) (e, ante *spec.Expr) {
	e = spec.Fold(inv.Expr)
	if a := spec.Antecedent(inv.Expr); a != nil {
		ante = spec.Fold(a)
	}
	c.analyse(chk, nil, nil, e, ante)
	return e, ante
}

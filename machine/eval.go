package machine

import (
	"fmt"
	"math/bits"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Expressions are compiled once into Go closures over a Machine's flat
// memory (see Machine.mem): a scalar expression becomes an evalFn, a
// location or compound-valued expression a ref (the offset in mem where
// its Width scalars live; static when known at compile time).
//
// Measured alternative: none yet; closures were chosen because the IR is
// a tree whose leaves are mostly constants and slot loads, which the
// specialised closures below turn into one indirect call each.

type evalFn func(m *Machine) int64

type refFn func(m *Machine) int

// ref is a location: static offset when dyn is nil.
type ref struct {
	static int
	dyn    refFn
}

func (r ref) at(m *Machine) int {
	if r.dyn == nil {
		return r.static
	}
	return r.dyn(m)
}

// site describes a runtime error or assertion location. msg is a format
// with one verb for the offending value when hasVal is set: %d, or %s
// for a value that does not fit an int64 (printed by [spec.IntString]).
type site struct {
	kind   Kind
	pos    spec.Position
	msg    string
	hasVal bool
	assign bool // out of range assignment: the message names the slot
}

// frameCtx says where an expression's state and frame slots live in mem.
type frameCtx struct {
	state, frame int
}

// compileError is an IR the compiler cannot handle.
type compileError struct {
	pos spec.Position
	msg string
}

func (e *compileError) Error() string {
	return fmt.Sprintf("wrapcheck internal error: %s: %s", e.pos, e.msg)
}

type compiler struct {
	p   *Program
	mem int // next free scratch offset
	err error
	// iv holds the bounds of the frame slots of the unit being compiled
	// (by mem offset), memo the bounds of its expressions (exact.go).
	iv   map[int]interval
	memo map[*spec.Expr]interval
	// bigSlot holds the frame slots (by mem offset) of the unit whose
	// values are stored exactly; cells counts the cells of OpLet bindings.
	bigSlot map[int]bool
	cells   int
}

func (c *compiler) fail(pos spec.Position, format string, args ...any) {
	if c.err == nil {
		c.err = &compileError{pos, fmt.Sprintf(format, args...)}
	}
}

func (c *compiler) scratch(n int) int {
	off := c.mem
	c.mem += n
	return off
}

func (c *compiler) site(kind Kind, pos spec.Position, msg string, hasVal bool) *site {
	return &site{kind: kind, pos: pos, msg: msg, hasVal: hasVal}
}

func isScalar(t *spec.Type) bool { return t == nil || t.IsScalar() }

func width(t *spec.Type) int {
	if t == nil || t.Width < 1 {
		return 1
	}
	return t.Width
}

// scalar compiles a scalar-valued expression. It recurses over e, whose height the front end bounds (see package
// spec, "Depth").
func (c *compiler) scalar(e *spec.Expr, cx frameCtx) evalFn {
	if e == nil {
		return func(*Machine) int64 { return 1 }
	}
	if !isScalar(e.Type) {
		c.fail(e.Pos, "compound expression %s used as a scalar", e.Op)
		return func(*Machine) int64 { return 0 }
	}
	if c.wide(e, cx) {
		return c.exactScalar(e, cx)
	}
	switch e.Op {
	case spec.OpNot, spec.OpAnd, spec.OpOr, spec.OpImplies:
		if f, ok := c.flatBool(e, cx); ok {
			return f
		}
	}
	switch e.Op {
	case spec.OpConst:
		v := e.Val
		return func(*Machine) int64 { return v }
	case spec.OpVar, spec.OpLocal, spec.OpIndex, spec.OpField:
		if f, ok := c.guardedIndex(e, cx); ok {
			return f
		}
		if x, ok := c.slotIndex(e, cx); ok {
			// a[i], a and i at static offsets: one closure for the
			// index's load and range test and the element's load.
			b, ix, add, lo, size, ew, st := x.base, x.ix, x.add, x.lo, x.size, x.ew, x.st
			return func(m *Machine) int64 {
				v := m.mem[ix]
				i := v - lo
				if uint64(i) >= uint64(size) {
					m.fail(st, v+add)
					return m.mem[b]
				}
				return m.mem[b+int(i*ew)]
			}
		}
		r := c.ref(e, cx)
		if r.dyn == nil {
			off := r.static
			return func(m *Machine) int64 { return m.mem[off] }
		}
		d := r.dyn
		return func(m *Machine) int64 { return m.mem[d(m)] }
	case spec.OpNot:
		if off, ok := staticOff(e.Args[0], cx); ok {
			return func(m *Machine) int64 { return 1 - m.mem[off] }
		}
		a := c.scalar(e.Args[0], cx)
		return func(m *Machine) int64 {
			if a(m) == 0 {
				return 1
			}
			return 0
		}
	case spec.OpNeg:
		a := c.scalar(e.Args[0], cx)
		return func(m *Machine) int64 { return -a(m) }
	case spec.OpAnd:
		a, b := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
		return func(m *Machine) int64 {
			if a(m) == 0 {
				return 0
			}
			return b(m)
		}
	case spec.OpOr:
		a, b := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
		return func(m *Machine) int64 {
			if a(m) != 0 {
				return 1
			}
			return b(m)
		}
	case spec.OpImplies:
		a, b := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
		return func(m *Machine) int64 {
			if a(m) == 0 {
				return 1
			}
			return b(m)
		}
	case spec.OpEq, spec.OpNe:
		eq := c.equal(e.Args[0], e.Args[1], cx)
		if e.Op == spec.OpEq {
			return eq
		}
		return func(m *Machine) int64 { return 1 - eq(m) }
	case spec.OpLt, spec.OpLe, spec.OpGt, spec.OpGe:
		return c.compare(e, cx)
	case spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpDiv, spec.OpMod,
		spec.OpUnion, spec.OpIntersect, spec.OpMinus, spec.OpSubset:
		return c.arith(e, cx)
	case spec.OpIn:
		x, s := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
		lo, size := setDomain(e.Args[1].Type)
		return func(m *Machine) int64 {
			d := x(m) - lo
			if d < 0 || d >= size {
				return 0
			}
			return (s(m) >> uint(d)) & 1
		}
	case spec.OpCard:
		a := c.scalar(e.Args[0], cx)
		return func(m *Machine) int64 { return int64(bits.OnesCount64(uint64(a(m)))) }
	case spec.OpSetLit:
		lo, size := setDomain(e.Type)
		st := c.site(RuntimeError, e.Pos, "set element %d outside "+spec.TypeString(e.Type.Elem, 0), true)
		elems := make([]evalFn, len(e.Args))
		for i, a := range e.Args {
			elems[i] = c.scalar(a, cx)
		}
		return func(m *Machine) int64 {
			var s uint64
			for _, f := range elems {
				v := f(m)
				d := v - lo
				if d < 0 || d >= size {
					m.fail(st, v)
					continue
				}
				s |= 1 << uint(d)
			}
			return int64(s)
		}
	case spec.OpCond:
		if e.Args[1].Op == spec.OpConst && e.Args[2].Op == spec.OpConst && e.Args[1].Big == nil && e.Args[2].Big == nil {
			k, a, b := c.scalar(e.Args[0], cx), e.Args[1].Val, e.Args[2].Val
			return func(m *Machine) int64 {
				if k(m) != 0 {
					return a
				}
				return b
			}
		}
		k, a, b := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx), c.scalar(e.Args[2], cx)
		return func(m *Machine) int64 {
			if k(m) != 0 {
				return a(m)
			}
			return b(m)
		}
	case spec.OpForall, spec.OpExists, spec.OpCount:
		return c.quant(e, cx)
	case spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr, spec.OpEMod:
		return c.bitwise(e, cx)
	case spec.OpLet:
		binds := c.binds(e, cx)
		last := c.scalar(e.Args[len(e.Args)-1], cx)
		return func(m *Machine) int64 {
			binds(m)
			return last(m)
		}
	}
	c.fail(e.Pos, "unexpected %s in a state expression", e.Op)
	return func(*Machine) int64 { return 0 }
}

// setDomain returns the element offset and count of a set type.
func setDomain(t *spec.Type) (lo, size int64) {
	if t == nil || t.Elem == nil {
		return 0, 64
	}
	return t.Elem.Lo, min(t.Elem.Size(), 64)
}

// binds compiles the bindings of an OpLet.
func (c *compiler) binds(e *spec.Expr, cx frameCtx) func(m *Machine) {
	type bind struct {
		off int
		w   int
		v   evalFn
		r   ref
		big func(m *Machine)
	}
	bs := make([]bind, len(e.Args)-1)
	for i := range bs {
		a := e.Args[i]
		b := bind{off: cx.frame + e.Binds[i], w: width(a.Type)}
		if c.isBigSlot(b.off) {
			b.big = c.bigStore(a, cx, b.off, c.cells)
			c.cells++
		} else if isScalar(a.Type) {
			b.v = c.scalar(a, cx)
		} else {
			b.r = c.ref(a, cx)
		}
		bs[i] = b
	}
	return func(m *Machine) {
		for i := range bs {
			b := &bs[i]
			if b.big != nil {
				b.big(m)
			} else if b.v != nil {
				m.mem[b.off] = b.v(m)
			} else {
				src := b.r.at(m)
				copy(m.mem[b.off:b.off+b.w], m.mem[src:src+b.w])
			}
		}
	}
}

func (c *compiler) quant(e *spec.Expr, cx frameCtx) evalFn {
	off := cx.frame + e.Slot
	lo, hi := int64(0), int64(1)
	leaves := [][2]int64{{0, 1}}
	if e.Dom != nil {
		var ok bool
		if leaves, ok = spec.DomainLeaves(e.Dom); !ok || len(leaves) == 0 {
			c.fail(e.Pos, "quantifier over %s", e.Dom.Kind)
			return func(*Machine) int64 { return 0 }
		}
		lo, hi = leaves[0][0], leaves[0][1]
	}
	if inst := unroll(e); inst != nil {
		return c.unrolled(e.Op, inst, cx)
	}
	body := c.scalar(e.Args[0], cx)
	if len(leaves) > 1 {
		// over an array or record type: every value, in the frame
		op, n := e.Op, len(leaves)
		return func(m *Machine) int64 {
			vals := m.mem[off : off+n]
			for i := range leaves {
				vals[i] = leaves[i][0]
			}
			var cnt int64
			for {
				t := body(m) != 0
				switch {
				case op == spec.OpForall && !t:
					return 0
				case op == spec.OpExists && t:
					return 1
				case t:
					cnt++
				}
				if !spec.NextValue(m.mem[off:off+n], leaves) {
					break
				}
			}
			switch op {
			case spec.OpForall:
				return 1
			case spec.OpExists:
				return 0
			}
			return cnt
		}
	}
	switch e.Op {
	case spec.OpForall:
		return func(m *Machine) int64 {
			for v := lo; v <= hi; v++ {
				if m.tick() {
					return 0
				}
				m.mem[off] = v
				if body(m) == 0 {
					return 0
				}
			}
			return 1
		}
	case spec.OpExists:
		return func(m *Machine) int64 {
			for v := lo; v <= hi; v++ {
				if m.tick() {
					return 0
				}
				m.mem[off] = v
				if body(m) != 0 {
					return 1
				}
			}
			return 0
		}
	}
	return func(m *Machine) int64 {
		var n int64
		for v := lo; v <= hi; v++ {
			if m.tick() {
				return 0
			}
			m.mem[off] = v
			if body(m) != 0 {
				n++
			}
		}
		return n
	}
}

// unrolled compiles a quantifier from its instances.
func (c *compiler) unrolled(op spec.Op, inst []*spec.Expr, cx frameCtx) evalFn {
	var live []*spec.Expr
	konst := int64(0) // count: instances folded to true
	for _, x := range inst {
		if x.Op == spec.OpConst {
			switch {
			case op == spec.OpForall && x.Val == 0:
				return func(*Machine) int64 { return 0 }
			case op == spec.OpExists && x.Val != 0:
				return func(*Machine) int64 { return 1 }
			case op == spec.OpCount && x.Val != 0:
				konst++
			}
			continue
		}
		live = append(live, x)
	}
	if f, ok := c.flatUnrolled(op, live, cx); ok {
		return f
	}
	if op == spec.OpForall {
		if f, ok := c.hoistForall(live, cx); ok {
			return f
		}
	}
	fs := make([]evalFn, len(live))
	for i, x := range live {
		fs[i] = c.scalar(x, cx)
	}
	switch op {
	case spec.OpForall:
		return allOf(fs)
	case spec.OpExists:
		return anyOf(fs)
	}
	return func(m *Machine) int64 {
		n := konst
		for _, f := range fs {
			if f(m) != 0 {
				n++
			}
		}
		return n
	}
}

func (c *compiler) equal(a, b *spec.Expr, cx frameCtx) evalFn {
	if isScalar(a.Type) {
		if b.Op == spec.OpConst {
			k := b.Val
			if off, ok := staticOff(a, cx); ok {
				return func(m *Machine) int64 { return b2i(m.mem[off] == k) }
			}
			if x, ok := c.slotIndex(a, cx); ok {
				b, ix, add, lo, size, ew, st := x.base, x.ix, x.add, x.lo, x.size, x.ew, x.st
				return func(m *Machine) int64 {
					v := m.mem[ix]
					i := v - lo
					if uint64(i) >= uint64(size) {
						m.fail(st, v+add)
						return b2i(m.mem[b] == k)
					}
					return b2i(m.mem[b+int(i*ew)] == k)
				}
			}
			x := c.scalar(a, cx)
			return func(m *Machine) int64 { return b2i(x(m) == k) }
		}
		if offA, ok := staticOff(a, cx); ok {
			if offB, ok := staticOff(b, cx); ok {
				return func(m *Machine) int64 { return b2i(m.mem[offA] == m.mem[offB]) }
			}
		}
		x, y := c.scalar(a, cx), c.scalar(b, cx)
		return func(m *Machine) int64 { return b2i(x(m) == y(m)) }
	}
	w := width(a.Type)
	ra, rb := c.ref(a, cx), c.ref(b, cx)
	return func(m *Machine) int64 {
		i, j := ra.at(m), rb.at(m)
		for k := 0; k < w; k++ {
			if m.mem[i+k] != m.mem[j+k] {
				return 0
			}
		}
		return 1
	}
}

// eqConstGuard returns, for a guard that scalar compiles to the closure
// `mem[off] == k` of equal (a scalar at a static offset compared with a
// constant, on the int64 path), off, k and only = true. For a guard
// `g1 and g2` whose left operand (recursively) has that form, it returns
// that operand's off and k with only = false: the guard's closure
// short-circuits, so the guard is false, without failing, whenever
// mem[off] != k. off is -1 for any other guard.
func (c *compiler) eqConstGuard(g *spec.Expr, cx frameCtx) (off int, k int64, only bool) {
	if !isScalar(g.Type) || c.wide(g, cx) || len(g.Args) != 2 {
		return -1, 0, false
	}
	a, b := g.Args[0], g.Args[1]
	switch g.Op {
	case spec.OpAnd:
		off, k, _ = c.eqConstGuard(a, cx)
		return off, k, false
	case spec.OpEq:
		if !isScalar(a.Type) || b.Op != spec.OpConst {
			return -1, 0, false
		}
		if o, ok := staticOff(a, cx); ok {
			return o, b.Val, true
		}
	}
	return -1, 0, false
}

// guardedIndex compiles a[if k < n then k else f] with a at a static
// offset, k and f constants and n a scalar at a static offset: a
// sequence's element k read below its length (s[k], head(s): spec's
// seqIndex, f = -1 fails). One closure for the test and the load, as
// a[i] costs, instead of the condition's three and a dynamic reference.
func (c *compiler) guardedIndex(e *spec.Expr, cx frameCtx) (evalFn, bool) {
	if e.Op != spec.OpIndex || e.Args[1].Op != spec.OpCond {
		return nil, false
	}
	at, cond := e.Args[0].Type, e.Args[1]
	lt, then, other := cond.Args[0], cond.Args[1], cond.Args[2]
	if at == nil || at.Index == nil || at.Elem == nil || !isScalar(at.Elem) || lt.Op != spec.OpLt ||
		lt.Args[0].Op != spec.OpConst || then.Op != spec.OpConst || other.Op != spec.OpConst ||
		lt.Args[0].Big != nil || then.Big != nil || other.Big != nil || lt.Args[0].Val != then.Val || c.wide(lt.Args[1], cx) {
		return nil, false
	}
	base, ok := staticOff(e.Args[0], cx)
	if !ok {
		return nil, false
	}
	n, ok := staticOff(lt.Args[1], cx)
	if !ok {
		return nil, false
	}
	lo, size, ew := at.Index.Lo, at.Index.Size(), int64(width(at.Elem))
	st := c.site(RuntimeError, e.Pos, fmt.Sprintf("index %%d out of range %d..%d", lo, at.Index.Hi), true)
	load := func(v int64) func(m *Machine) int64 { // the element at index v
		if v < lo || v-lo >= size {
			return func(m *Machine) int64 {
				m.fail(st, v)
				return m.mem[base]
			}
		}
		off := base + int((v-lo)*ew)
		return func(m *Machine) int64 { return m.mem[off] }
	}
	k, f := then.Val, other.Val
	if k >= lo && k-lo < size && (f < lo || f-lo >= size) { // a sequence's: in range below n, else fails
		off := base + int((k-lo)*ew)
		return func(m *Machine) int64 {
			if k < m.mem[n] {
				return m.mem[off]
			}
			m.fail(st, f)
			return m.mem[base]
		}, true
	}
	yes, no := load(k), load(f)
	return func(m *Machine) int64 {
		if k < m.mem[n] {
			return yes(m)
		}
		return no(m)
	}, true
}

// slotIndex is an element a[i] of an array at a static offset (base)
// indexed by a scalar at a static offset (ix) that is not wide, plus a
// constant (add: a[n - 1], as a sequence's append stores): the element
// is at base + (mem[ix]-lo)*ew when 0 <= mem[ix]-lo < size, lo being the
// index type's lower bound less add (so that the closures' fast path
// has no addition), and an index out of range fails at st with the index
// mem[ix]+add (ref's message and position).
type slotIndex struct {
	base, ix     int
	add          int64
	lo, size, ew int64
	st           *site
}

// slotIndex returns e as a slotIndex when it has that form.
func (c *compiler) slotIndex(e *spec.Expr, cx frameCtx) (slotIndex, bool) {
	if e.Op != spec.OpIndex {
		return slotIndex{}, false
	}
	at, ix := e.Args[0].Type, e.Args[1]
	if at == nil || at.Index == nil || at.Elem == nil || ix.Op == spec.OpConst || c.wide(ix, cx) {
		return slotIndex{}, false
	}
	base, ok := staticOff(e.Args[0], cx)
	if !ok {
		return slotIndex{}, false
	}
	var add int64
	if (ix.Op == spec.OpAdd || ix.Op == spec.OpSub) && ix.Args[1].Op == spec.OpConst && ix.Args[1].Big == nil &&
		ix.Args[1].Val > -1<<32 && ix.Args[1].Val < 1<<32 && isScalar(ix.Args[0].Type) {
		add = ix.Args[1].Val
		if ix.Op == spec.OpSub {
			add = -add
		}
		ix = ix.Args[0]
	}
	ixo, ok := staticOff(ix, cx)
	if !ok {
		return slotIndex{}, false
	}
	lo := at.Index.Lo
	return slotIndex{base: base, ix: ixo, add: add, lo: lo - add, size: at.Index.Size(), ew: int64(width(at.Elem)),
		st: c.site(RuntimeError, e.Pos, fmt.Sprintf("index %%d out of range %d..%d", lo, at.Index.Hi), true)}, true
}

// staticOff returns the mem offset of a location known at compile time.
func staticOff(e *spec.Expr, cx frameCtx) (int, bool) {
	switch e.Op {
	case spec.OpVar:
		return cx.state + e.Slot, true
	case spec.OpLocal:
		return cx.frame + e.Slot, true
	case spec.OpField:
		if b, ok := staticOff(e.Args[0], cx); ok {
			return b + int(e.Val), true
		}
	case spec.OpIndex:
		at, ix := e.Args[0].Type, e.Args[1]
		if at == nil || at.Index == nil || at.Elem == nil || ix.Op != spec.OpConst {
			return 0, false
		}
		lo, size := at.Index.Lo, at.Index.Size()
		if ix.Val < lo || ix.Val-lo >= size {
			return 0, false
		}
		if b, ok := staticOff(e.Args[0], cx); ok {
			return b + int((ix.Val-lo)*int64(width(at.Elem))), true
		}
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) compare(e *spec.Expr, cx frameCtx) evalFn {
	if off, ok := staticOff(e.Args[0], cx); ok && e.Args[1].Op == spec.OpConst {
		k := e.Args[1].Val
		switch e.Op {
		case spec.OpLt:
			return func(m *Machine) int64 { return b2i(m.mem[off] < k) }
		case spec.OpLe:
			return func(m *Machine) int64 { return b2i(m.mem[off] <= k) }
		case spec.OpGt:
			return func(m *Machine) int64 { return b2i(m.mem[off] > k) }
		default:
			return func(m *Machine) int64 { return b2i(m.mem[off] >= k) }
		}
	}
	if a, ok := staticOff(e.Args[0], cx); ok {
		if b, ok := staticOff(e.Args[1], cx); ok {
			switch e.Op {
			case spec.OpLt:
				return func(m *Machine) int64 { return b2i(m.mem[a] < m.mem[b]) }
			case spec.OpLe:
				return func(m *Machine) int64 { return b2i(m.mem[a] <= m.mem[b]) }
			case spec.OpGt:
				return func(m *Machine) int64 { return b2i(m.mem[a] > m.mem[b]) }
			default:
				return func(m *Machine) int64 { return b2i(m.mem[a] >= m.mem[b]) }
			}
		}
	}
	x, y := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
	switch e.Op {
	case spec.OpLt:
		if e.Args[1].Op == spec.OpConst {
			k := e.Args[1].Val
			return func(m *Machine) int64 { return b2i(x(m) < k) }
		}
		return func(m *Machine) int64 { return b2i(x(m) < y(m)) }
	case spec.OpLe:
		return func(m *Machine) int64 { return b2i(x(m) <= y(m)) }
	case spec.OpGt:
		return func(m *Machine) int64 { return b2i(x(m) > y(m)) }
	}
	return func(m *Machine) int64 { return b2i(x(m) >= y(m)) }
}

func (c *compiler) arith(e *spec.Expr, cx frameCtx) evalFn {
	x, y := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
	switch e.Op {
	case spec.OpAdd:
		if e.Args[1].Op == spec.OpConst {
			k := e.Args[1].Val
			if off, ok := staticOff(e.Args[0], cx); ok {
				return func(m *Machine) int64 { return m.mem[off] + k }
			}
			return func(m *Machine) int64 { return x(m) + k }
		}
		return func(m *Machine) int64 { return x(m) + y(m) }
	case spec.OpSub:
		if e.Args[1].Op == spec.OpConst {
			k := e.Args[1].Val
			return func(m *Machine) int64 { return x(m) - k }
		}
		return func(m *Machine) int64 { return x(m) - y(m) }
	case spec.OpMul:
		return func(m *Machine) int64 { return x(m) * y(m) }
	case spec.OpDiv, spec.OpMod:
		msg, div := "division by zero", e.Op == spec.OpDiv
		if !div {
			msg = "modulo by zero"
		}
		st := c.site(RuntimeError, e.Pos, msg, false)
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if b == 0 {
				m.fail(st, 0)
				return 0
			}
			if div {
				return a / b
			}
			return a % b
		}
	case spec.OpUnion:
		return func(m *Machine) int64 { return x(m) | y(m) }
	case spec.OpIntersect:
		return func(m *Machine) int64 { return x(m) & y(m) }
	case spec.OpMinus:
		return func(m *Machine) int64 { return x(m) &^ y(m) }
	}
	// OpSubset
	return func(m *Machine) int64 { return b2i(x(m)&^y(m) == 0) }
}

// ref compiles a location or a compound-valued expression to the offset
// of its value in mem. It recurses over e, whose height the front end bounds (see package
// spec, "Depth").
func (c *compiler) ref(e *spec.Expr, cx frameCtx) ref {
	switch e.Op {
	case spec.OpVar:
		return ref{static: cx.state + e.Slot}
	case spec.OpLocal:
		return ref{static: cx.frame + e.Slot}
	case spec.OpField:
		base := c.ref(e.Args[0], cx)
		fo := int(e.Val)
		if base.dyn == nil {
			return ref{static: base.static + fo}
		}
		d := base.dyn
		return ref{dyn: func(m *Machine) int { return d(m) + fo }}
	case spec.OpIndex:
		at := e.Args[0].Type
		base := c.ref(e.Args[0], cx)
		if at == nil || at.Index == nil || at.Elem == nil {
			c.fail(e.Pos, "index of a non-array")
			return ref{}
		}
		lo, size, ew := at.Index.Lo, at.Index.Size(), int64(width(at.Elem))
		ix := e.Args[1]
		if ix.Op == spec.OpConst && base.dyn == nil && ix.Val >= lo && ix.Val-lo < size {
			return ref{static: base.static + int((ix.Val-lo)*ew)}
		}
		if x, ok := c.slotIndex(e, cx); ok {
			b, ixo, add, xlo, st := x.base, x.ix, x.add, x.lo, x.st
			return ref{dyn: func(m *Machine) int {
				v := m.mem[ixo]
				i := v - xlo
				if uint64(i) >= uint64(size) {
					m.fail(st, v+add)
					return b
				}
				return b + int(i*ew)
			}}
		}
		st := c.site(RuntimeError, e.Pos, fmt.Sprintf("index %%d out of range %d..%d", lo, at.Index.Hi), true)
		idx := c.scalar(ix, cx)
		if base.dyn == nil {
			b := base.static
			return ref{dyn: func(m *Machine) int {
				v := idx(m)
				i := v - lo
				if i < 0 || i >= size {
					m.fail(st, v)
					return b
				}
				return b + int(i*ew)
			}}
		}
		d := base.dyn
		return ref{dyn: func(m *Machine) int {
			b := d(m)
			v := idx(m)
			i := v - lo
			if i < 0 || i >= size {
				m.fail(st, v)
				return b
			}
			return b + int(i*ew)
		}}
	case spec.OpCond:
		k, a, b := c.scalar(e.Args[0], cx), c.ref(e.Args[1], cx), c.ref(e.Args[2], cx)
		return ref{dyn: func(m *Machine) int {
			if k(m) != 0 {
				return a.at(m)
			}
			return b.at(m)
		}}
	case spec.OpLet:
		binds := c.binds(e, cx)
		last := c.ref(e.Args[len(e.Args)-1], cx)
		return ref{dyn: func(m *Machine) int {
			binds(m)
			return last.at(m)
		}}
	case spec.OpRecordLit:
		t := e.Type
		off := c.scratch(width(t))
		type field struct {
			at int
			w  int
			v  evalFn
			r  ref
		}
		fs := make([]field, len(e.Args))
		for i, a := range e.Args {
			f := field{at: off, w: width(a.Type)}
			if i < len(t.Fields) {
				f.at = off + t.Fields[i].Offset
			} else if t.Kind == spec.ArrayKind {
				f.at = off + i*width(t.Elem) // an array literal (an extension): elements in index order
			}
			if isScalar(a.Type) {
				f.v = c.scalar(a, cx)
			} else {
				f.r = c.ref(a, cx)
			}
			fs[i] = f
		}
		return ref{dyn: func(m *Machine) int {
			for i := range fs {
				f := &fs[i]
				if f.v != nil {
					m.mem[f.at] = f.v(m)
				} else {
					src := f.r.at(m)
					copy(m.mem[f.at:f.at+f.w], m.mem[src:src+f.w])
				}
			}
			return off
		}}
	}
	if isScalar(e.Type) {
		// A scalar value used where a location is expected: materialise it.
		v := c.scalar(e, cx)
		off := c.scratch(1)
		return ref{dyn: func(m *Machine) int {
			m.mem[off] = v(m)
			return off
		}}
	}
	c.fail(e.Pos, "unexpected compound %s", e.Op)
	return ref{}
}

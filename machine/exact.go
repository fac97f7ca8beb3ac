package machine

import (
	"math"
	"math/big"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Integers are exact: an intermediate result is an unbounded integer and
// only a stored value must fit its range. Every value the machine stores
// (a state slot, a frame slot) is an int64, so every expression has
// static bounds, computed here at compile time by interval analysis over
// the slots' domains. An integer expression whose bounds, and whose
// operands' bounds, fit an int64 is compiled to the int64 closures of
// eval.go, which then cannot overflow: that is nearly every expression,
// and the hot loop is unchanged. Only an expression with an operand whose
// bounds do not fit is compiled to the exact path below (math/big, which
// allocates). A value that does not fit an int64 and reaches a place that
// stores it (an assignment to a variable, an index, a set element, an
// agent's argument) is a runtime error: it is outside every range.
//
// Frame slots get their bounds from what the unit being compiled writes
// into them (a let's value, an assignment to a let, a quantified or
// chosen variable's domain, an agent's answers), joined over the unit,
// flow-insensitively: rounds from unbounded slots, recomputing each slot
// in program order, refine them (every round is sound). A let slot whose
// bounds do not fit an int64 is a big slot: the frame holds a reference
// to its exact value (Machine.bigAt), so lets are exact too.

// interval is a closed integer interval [lo, hi] (lo <= hi), or, when
// inf is set, all the integers.
type interval struct {
	lo, hi *big.Int
	inf    bool
}

func unbounded() interval { return interval{inf: true} }

var (
	minInt64 = big.NewInt(math.MinInt64)
	maxInt64 = big.NewInt(math.MaxInt64)
)

func fullInt64() interval { return interval{lo: minInt64, hi: maxInt64} }

func point(v *big.Int) interval { return interval{lo: v, hi: v} }

func span(lo, hi int64) interval { return interval{lo: big.NewInt(lo), hi: big.NewInt(hi)} }

// fits reports whether every value of iv is an int64.
func (iv interval) fits() bool {
	return !iv.inf && iv.lo.Cmp(minInt64) >= 0 && iv.hi.Cmp(maxInt64) <= 0
}

func (iv interval) equal(o interval) bool {
	if iv.inf || o.inf {
		return iv.inf == o.inf
	}
	return iv.lo.Cmp(o.lo) == 0 && iv.hi.Cmp(o.hi) == 0
}

func (iv interval) join(o interval) interval {
	if iv.inf || o.inf {
		return unbounded()
	}
	r := iv
	if o.lo.Cmp(r.lo) < 0 {
		r.lo = o.lo
	}
	if o.hi.Cmp(r.hi) > 0 {
		r.hi = o.hi
	}
	return r
}

// clamp returns iv ∩ int64 (the bounds of a stored value).
func (iv interval) clamp() interval {
	if iv.inf {
		return fullInt64()
	}
	r := iv
	if r.lo.Cmp(minInt64) < 0 {
		r.lo = minInt64
	}
	if r.hi.Cmp(maxInt64) > 0 {
		r.hi = maxInt64
	}
	if r.lo.Cmp(r.hi) > 0 {
		return fullInt64()
	}
	return r
}

// corners returns the interval spanned by f over the corners of a and b.
func corners(a, b interval, f func(x, y *big.Int) *big.Int) interval {
	if a.inf || b.inf {
		return unbounded()
	}
	var r interval
	for i, x := range [2]*big.Int{a.lo, a.hi} {
		for j, y := range [2]*big.Int{b.lo, b.hi} {
			v := f(x, y)
			if i == 0 && j == 0 {
				r = point(v)
			} else {
				r = r.join(point(v))
			}
		}
	}
	return r
}

func bigAbsMax(iv interval) *big.Int {
	a, b := new(big.Int).Abs(iv.lo), new(big.Int).Abs(iv.hi)
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

// typeBounds returns the bounds of a stored value of the scalar type t,
// and whether t bounds it at all.
func typeBounds(t *spec.Type) (interval, bool) {
	if t == nil {
		return interval{}, false
	}
	switch t.Kind {
	case spec.BoolKind:
		return span(0, 1), true
	case spec.RangeKind, spec.EnumKind, spec.SymmetricKind:
		return span(t.Lo, t.Hi), true
	}
	return interval{}, false
}

// isInt reports whether t is an integer type (a range or an unbounded int).
func isInt(t *spec.Type) bool {
	return t != nil && (t.Kind == spec.IntKind || t.Kind == spec.RangeKind)
}

// rootOf returns the variable or local a location expression starts from.
func rootOf(e *spec.Expr) *spec.Expr {
	for e.Op == spec.OpIndex || e.Op == spec.OpField {
		e = e.Args[0]
	}
	return e
}

// bounds returns static bounds of the scalar expression e.
func (c *compiler) bounds(e *spec.Expr, cx frameCtx) interval {
	if v, ok := c.memo[e]; ok {
		return v
	}
	v := c.bounds1(e, cx)
	if c.memo == nil {
		c.memo = make(map[*spec.Expr]interval)
	}
	c.memo[e] = v
	return v
}

// maxBoundBits bounds the size of the bounds the interval analysis
// computes: an interval with a bound of more bits is treated as
// unbounded. Both are far outside int64, so the expression is evaluated
// exactly either way; the cap keeps each step of the analysis cheap
// (products of constants near spec.MaxIntBits bits, chained, would not
// be).
const maxBoundBits = 512

// capped returns iv, or unbounded when a bound of iv needs more than
// maxBoundBits bits.
func (iv interval) capped() interval {
	if !iv.inf && (iv.lo.BitLen() > maxBoundBits || iv.hi.BitLen() > maxBoundBits) {
		return unbounded()
	}
	return iv
}

func (c *compiler) bounds1(e *spec.Expr, cx frameCtx) interval {
	return c.bounds2(e, cx).capped()
}

func (c *compiler) bounds2(e *spec.Expr, cx frameCtx) interval {
	arg := func(i int) interval { return c.bounds(e.Args[i], cx) }
	switch e.Op {
	case spec.OpConst:
		if !isScalar(e.Type) {
			return fullInt64()
		}
		return point(e.BigVal())
	case spec.OpVar, spec.OpLocal, spec.OpIndex, spec.OpField:
		root := rootOf(e)
		if root.Op == spec.OpVar {
			// A state slot holds a value of its domain (Machine.set).
			if iv, ok := typeBounds(e.Type); ok {
				return iv
			}
			return fullInt64()
		}
		if e.Op == spec.OpLocal {
			if iv, ok := c.iv[cx.frame+e.Slot]; ok {
				return iv
			}
		}
		if e.Type != nil && (e.Type.Kind == spec.BoolKind || e.Type.Kind == spec.EnumKind || e.Type.Kind == spec.SymmetricKind) {
			iv, _ := typeBounds(e.Type)
			return iv
		}
		return fullInt64() // a frame slot holds an int64
	case spec.OpNot, spec.OpAnd, spec.OpOr, spec.OpImplies, spec.OpEq, spec.OpNe, spec.OpLt, spec.OpLe,
		spec.OpGt, spec.OpGe, spec.OpIn, spec.OpSubset, spec.OpForall, spec.OpExists:
		return span(0, 1)
	case spec.OpCard:
		return span(0, 64)
	case spec.OpCount:
		n := int64(2)
		if e.Dom != nil {
			n, _ = spec.DomainSize(e.Dom)
		}
		return span(0, n)
	case spec.OpNeg:
		a := arg(0)
		if a.inf {
			return a
		}
		return interval{lo: new(big.Int).Neg(a.hi), hi: new(big.Int).Neg(a.lo)}
	case spec.OpAdd:
		a, b := arg(0), arg(1)
		if a.inf || b.inf {
			return unbounded()
		}
		return interval{lo: new(big.Int).Add(a.lo, b.lo), hi: new(big.Int).Add(a.hi, b.hi)}
	case spec.OpSub:
		a, b := arg(0), arg(1)
		if a.inf || b.inf {
			return unbounded()
		}
		return interval{lo: new(big.Int).Sub(a.lo, b.hi), hi: new(big.Int).Sub(a.hi, b.lo)}
	case spec.OpMul:
		return corners(arg(0), arg(1), func(x, y *big.Int) *big.Int { return new(big.Int).Mul(x, y) })
	case spec.OpDiv:
		a, b := arg(0), arg(1)
		switch {
		case a.inf:
			return a
		case b.inf:
			m := bigAbsMax(a) // |a / b| <= |a|
			return interval{lo: new(big.Int).Neg(m), hi: m}
		}
		quo := func(x, y *big.Int) *big.Int { return new(big.Int).Quo(x, y) }
		// Truncated division is monotone in each operand while the
		// divisor keeps its sign: split the divisor at zero.
		var r *interval
		add := func(iv interval) {
			if r == nil {
				r = &iv
			} else {
				j := r.join(iv)
				r = &j
			}
		}
		one, minus := big.NewInt(1), big.NewInt(-1)
		if b.lo.Sign() < 0 {
			hi := b.hi
			if hi.Sign() >= 0 {
				hi = minus
			}
			add(corners(a, interval{lo: b.lo, hi: hi}, quo))
		}
		if b.hi.Sign() > 0 {
			lo := b.lo
			if lo.Sign() <= 0 {
				lo = one
			}
			add(corners(a, interval{lo: lo, hi: b.hi}, quo))
		}
		if r == nil {
			return span(0, 0) // always a division by zero
		}
		return *r
	case spec.OpMod:
		a, b := arg(0), arg(1)
		switch {
		case a.inf && b.inf:
			return a
		case b.inf:
			m := bigAbsMax(a) // |a % b| <= |a|
			return interval{lo: new(big.Int).Neg(m), hi: m}
		case a.inf:
			a = interval{lo: new(big.Int).Neg(bigAbsMax(b)), hi: bigAbsMax(b)}
		}
		m := bigAbsMax(b)
		if m.Sign() > 0 {
			m.Sub(m, big.NewInt(1))
		}
		lo, hi := new(big.Int).Neg(m), m
		// The remainder has the dividend's sign and |r| <= |a|.
		if a.lo.Sign() >= 0 {
			lo = big.NewInt(0)
		} else if a.lo.Cmp(lo) > 0 {
			lo = a.lo
		}
		if a.hi.Sign() <= 0 {
			hi = big.NewInt(0)
		} else if a.hi.Cmp(hi) < 0 {
			hi = a.hi
		}
		return interval{lo: lo, hi: hi}
	case spec.OpCond:
		if !isScalar(e.Type) {
			return fullInt64()
		}
		return arg(1).join(arg(2))
	case spec.OpLet:
		return arg(len(e.Args) - 1)
	case spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr, spec.OpEMod:
		return c.bitBounds(e, cx)
	}
	return fullInt64()
}

// needsExact reports whether e is an integer operator or comparison with
// an operand whose bounds do not fit an int64: its int64 closure could
// overflow.
func (c *compiler) needsExact(e *spec.Expr, cx frameCtx) bool {
	if !spec.IsExactOp(e.Op) {
		return false
	}
	for _, a := range e.Args {
		if isInt(a.Type) && (a.IsBig() || !c.bounds(a, cx).fits()) {
			return true
		}
	}
	return false
}

// wide reports whether the scalar e must be compiled to the exact path:
// its value, or one of its operands', may not fit an int64.
func (c *compiler) wide(e *spec.Expr, cx frameCtx) bool {
	if !isInt(e.Type) && e.Type.Kind != spec.BoolKind {
		return false
	}
	switch e.Op {
	case spec.OpConst:
		return e.Big != nil
	case spec.OpLocal:
		return c.bigSlot[cx.frame+e.Slot]
	case spec.OpVar, spec.OpIndex, spec.OpField:
		return false
	}
	return c.needsExact(e, cx) || (isInt(e.Type) && !c.bounds(e, cx).fits())
}

// isBigSlot reports whether the frame slot at mem offset off holds a
// reference to an exact value (a let whose values may not fit an int64).
func (c *compiler) isBigSlot(off int) bool { return c.bigSlot[off] }

// bigStore compiles storing the exact value of v into the big slot at
// mem offset off, through the undo trail (an action's let) or directly
// (an OpLet binding, cell >= 0: its own cell).
func (c *compiler) bigStore(v *spec.Expr, cx frameCtx, off int, cell int) func(m *Machine) {
	f := c.exact(v, cx)
	if cell >= 0 {
		return func(m *Machine) {
			x := f(m)
			m.mem[off] = m.setCell(cell, x)
		}
	}
	return func(m *Machine) {
		x := f(m)
		m.set(off, m.pushBig(x), nil)
	}
}

// setCell stores v in cell k and returns the reference to it.
func (m *Machine) setCell(k int, v *big.Int) int64 {
	for len(m.cells) <= k {
		m.cells = append(m.cells, nil)
	}
	m.cells[k] = v
	return -int64(k) - 1
}

// pushBig appends v to the action's arena and returns the reference to
// it; the arena is emptied when an action or the init block starts.
func (m *Machine) pushBig(v *big.Int) int64 {
	m.arena = append(m.arena, v)
	return int64(len(m.arena) - 1)
}

// bigAt returns the exact value a big slot refers to.
func (m *Machine) bigAt(ref int64) *big.Int {
	switch {
	case ref < 0 && int(-ref-1) < len(m.cells) && m.cells[-ref-1] != nil:
		return m.cells[-ref-1]
	case ref >= 0 && ref < int64(len(m.arena)):
		return m.arena[ref]
	}
	panic("wrapcheck internal error: a big slot read before it is written")
}

type bigFn func(m *Machine) *big.Int

// exactScalar compiles the wide scalar e: exactly, then checked to fit
// an int64 (a value that does not is a runtime error where it is used).
func (c *compiler) exactScalar(e *spec.Expr, cx frameCtx) evalFn {
	c.p.exactExprs++
	f := c.exact(e, cx)
	st := c.site(RuntimeError, e.Pos, "value %d does not fit a 64-bit integer", true)
	return func(m *Machine) int64 {
		v := f(m)
		if v.IsInt64() {
			return v.Int64()
		}
		m.failBig(st, v)
		return 0
	}
}

// exact compiles the integer (or comparison) e to math/big. Its operands
// whose bounds fit are compiled to int64 closures.
func (c *compiler) exact(e *spec.Expr, cx frameCtx) bigFn {
	switch {
	case e.Op == spec.OpConst:
		v := e.BigVal()
		return func(*Machine) *big.Int { return v } // never modified: results are fresh
	case e.Op == spec.OpLocal && c.bigSlot[cx.frame+e.Slot]:
		off := cx.frame + e.Slot
		return func(m *Machine) *big.Int { return m.bigAt(m.mem[off]) }
	case e.Op == spec.OpCond && isScalar(e.Type):
		k, a, b := c.scalar(e.Args[0], cx), c.exact(e.Args[1], cx), c.exact(e.Args[2], cx)
		return func(m *Machine) *big.Int {
			if k(m) != 0 {
				return a(m)
			}
			return b(m)
		}
	case e.Op == spec.OpLet && isScalar(e.Type):
		binds := c.binds(e, cx)
		last := c.exact(e.Args[len(e.Args)-1], cx)
		return func(m *Machine) *big.Int {
			binds(m)
			return last(m)
		}
	case spec.IsExactOp(e.Op) && c.wide(e, cx):
		op := e.Op
		a := c.exact(e.Args[0], cx)
		if op == spec.OpNeg {
			return func(m *Machine) *big.Int { return new(big.Int).Neg(a(m)) }
		}
		b := c.exact(e.Args[1], cx)
		var st *site
		if op == spec.OpDiv || op == spec.OpMod || op == spec.OpEMod {
			msg := "division by zero"
			if op != spec.OpDiv {
				msg = "modulo by zero"
			}
			st = c.site(RuntimeError, e.Pos, msg, false)
		}
		large := c.site(RuntimeError, e.Pos, spec.ErrIntTooLarge.Error(), false)
		return func(m *Machine) *big.Int {
			x, y := a(m), b(m)
			if m.tickBig(len(x.Bits()) + len(y.Bits())) {
				return new(big.Int) // interrupted: the failure is pending
			}
			v, err := spec.EvalExact(op, x, y)
			if err != nil {
				if err == spec.ErrIntTooLarge {
					m.fail(large, 0)
				} else {
					m.fail(st, 0)
				}
				return new(big.Int)
			}
			return v
		}
	}
	f := c.scalar(e, cx)
	return func(m *Machine) *big.Int { return big.NewInt(f(m)) }
}

// tickBig counts an exact operation on operands of n words (64 bits) as
// n steps of [Machine.tick]: an operation costs about as much as that
// many loop steps, so that a long run of them, with no loop around it
// (a straight line of statements on numbers near spec.MaxIntBits bits),
// still polls the interrupt every few milliseconds. It reports whether
// the evaluation must end now, as tick does.
func (m *Machine) tickBig(n int) bool {
	m.countdown -= int64(n)
	if m.countdown > 0 {
		return false
	}
	return m.poll()
}

// failBig records a failure whose offending value does not fit an int64.
func (m *Machine) failBig(s *site, v *big.Int) {
	if m.err == nil {
		m.err = s
		m.errVal = 0
		m.errBig = new(big.Int).Set(v)
	}
}

// analyse computes the bounds of the frame slots written by one unit
// (an action's guard and body, the init block, a predicate) before it is
// compiled; fixed holds slots whose bounds are known (an agent frame's
// parameters and result).
func (c *compiler) analyse(cx frameCtx, fixed map[int]interval, stmts []*spec.Stmt, exprs ...*spec.Expr) {
	c.memo = nil
	c.iv = make(map[int]interval, len(fixed))
	writes := map[int][]*spec.Expr{}
	seed := map[int]*interval{}
	narrow := map[int]bool{} // slots that hold int64 values only
	var order []int          // slots in first-write order, for determinism
	write := func(off int, v *spec.Expr) {
		if _, ok := writes[off]; !ok {
			order = append(order, off)
		}
		writes[off] = append(writes[off], v)
	}
	dom := func(off int, t *spec.Type) {
		if iv, ok := typeBounds(t); ok {
			fixed = withFixed(fixed, off, iv)
		}
	}
	expr := func(e *spec.Expr) {
		spec.Walk(e, func(e *spec.Expr) bool {
			switch e.Op {
			case spec.OpLet:
				for i, b := range e.Binds {
					if i < len(e.Args) && isScalar(e.Args[i].Type) {
						write(cx.frame+b, e.Args[i])
					}
				}
			case spec.OpForall, spec.OpExists, spec.OpCount:
				dom(cx.frame+e.Slot, e.Dom)
			}
			return true
		})
	}
	var stmt func(ss []*spec.Stmt)
	stmt = func(ss []*spec.Stmt) {
		for _, s := range ss {
			expr(s.Target)
			expr(s.Value)
			expr(s.Cond)
			for _, a := range s.Args {
				expr(a)
			}
			switch s.Op {
			case spec.SLet:
				if s.Value != nil && isScalar(s.Value.Type) {
					write(cx.frame+s.Slot, s.Value)
				}
			case spec.SAssign:
				if s.Target != nil && s.Target.Op == spec.OpLocal && isScalar(s.Target.Type) {
					write(cx.frame+s.Target.Slot, s.Value)
					if s.Target.Type.Kind != spec.IntKind {
						narrow[cx.frame+s.Target.Slot] = true // a range, kept by frameFits
					}
				}
			case spec.SChoose:
				dom(cx.frame+s.Slot, s.Dom)
			case spec.SAsk:
				if s.Target == nil && s.Agent >= 0 && s.Agent < len(c.p.Model.Agents) {
					if r := c.p.Model.Agents[s.Agent].Result; r != nil && r.IsScalar() {
						dom(cx.frame+s.Slot, r)
					}
				} else if s.Target != nil && s.Target.Op == spec.OpLocal && s.Agent >= 0 && s.Agent < len(c.p.Model.Agents) {
					// An answer stored into a let: one more write.
					off := cx.frame + s.Target.Slot
					iv, ok := typeBounds(c.p.Model.Agents[s.Agent].Result)
					if !ok {
						iv = fullInt64()
					}
					if _, ok := writes[off]; !ok {
						order = append(order, off)
						writes[off] = nil
					}
					seed[off] = withSeed(seed[off], iv)
				}
			}
			stmt(s.Body)
			stmt(s.Else)
			for _, cs := range s.Cases {
				stmt(cs.Body)
			}
		}
	}
	stmt(stmts)
	for _, e := range exprs {
		expr(e)
	}
	for off, iv := range fixed {
		c.iv[off] = iv
	}
	for _, off := range order {
		if _, ok := fixed[off]; !ok {
			c.iv[off] = unbounded()
		}
	}
	// Rounds from the top (every slot unbounded), each slot recomputed in
	// program order from the current bounds of the others: every round is
	// sound, and a chain of lets settles in one.
	for round := 0; round < 8; round++ {
		changed := false
		for _, off := range order {
			if _, ok := fixed[off]; ok {
				continue
			}
			j := seed[off]
			for _, v := range writes[off] {
				b := c.bounds(v, cx)
				if j == nil {
					j = &b
				} else {
					x := j.join(b)
					j = &x
				}
			}
			r := *j
			if seed[off] != nil || narrow[off] {
				// an agent's answer is stored as an int64 here: the slot
				// holds int64 values only (a larger one is a runtime error)
				r = r.clamp()
			}
			if !c.iv[off].equal(r) {
				changed = true
				c.iv[off] = r
				c.memo = nil
			}
		}
		if !changed {
			break
		}
	}
	c.memo = nil
	c.bigSlot = nil
	for _, off := range order {
		if !c.iv[off].fits() {
			// a let whose values may not fit an int64: stored exactly
			// (the frame slot holds a reference, see Machine.bigAt)
			if c.bigSlot == nil {
				c.bigSlot = map[int]bool{}
			}
			c.bigSlot[off] = true
		}
	}
}

func withFixed(m map[int]interval, off int, iv interval) map[int]interval {
	if m == nil {
		m = map[int]interval{}
	}
	if old, ok := m[off]; ok {
		iv = old.join(iv)
	}
	m[off] = iv
	return m
}

func withSeed(old *interval, iv interval) *interval {
	if old != nil {
		iv = old.join(iv)
	}
	return &iv
}

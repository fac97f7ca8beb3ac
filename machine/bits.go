package machine

import (
	"math"
	"math/big"

	"github.com/wrapcheck/wrapcheck/spec"
)

// The bitwise operators (&, |, ^, <<, >>) and the Euclidean modulo, both
// extensions. A bitwise operator's operands must be non-negative and fit
// an int64 (an operand that does not fit is the runtime error of every
// value used as one), and the result of << must fit an int64; so its
// result always fits, and it never needs the exact path. The Euclidean
// modulo is an exact operator (spec.IsExactOp) like %.

// bitSites returns the runtime errors of the bitwise operator e: a
// negative operand, and (<< only) a result past int64.
func (c *compiler) bitSites(e *spec.Expr) (neg, ovf *site) {
	neg = c.site(RuntimeError, e.Pos, "negative operand %d of "+e.Op.String(), true)
	if e.Op == spec.OpShl {
		ovf = c.site(RuntimeError, e.Pos, "shift result does not fit a 64-bit integer", false)
	}
	return neg, ovf
}

// bitwise compiles a bitwise operator or the Euclidean modulo on int64
// operands.
func (c *compiler) bitwise(e *spec.Expr, cx frameCtx) evalFn {
	x, y := c.scalar(e.Args[0], cx), c.scalar(e.Args[1], cx)
	if e.Op == spec.OpEMod {
		st := c.site(RuntimeError, e.Pos, "modulo by zero", false)
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if b == 0 {
				m.fail(st, 0)
				return 0
			}
			return spec.EMod64(a, b)
		}
	}
	neg, ovf := c.bitSites(e)
	switch e.Op {
	case spec.OpBitAnd:
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if a|b < 0 {
				m.fail(neg, min(a, b))
				return 0
			}
			return a & b
		}
	case spec.OpBitOr:
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if a|b < 0 {
				m.fail(neg, min(a, b))
				return 0
			}
			return a | b
		}
	case spec.OpBitXor:
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if a|b < 0 {
				m.fail(neg, min(a, b))
				return 0
			}
			return a ^ b
		}
	case spec.OpShr:
		return func(m *Machine) int64 {
			a, b := x(m), y(m)
			if a|b < 0 {
				m.fail(neg, min(a, b))
				return 0
			}
			if b >= 63 {
				return 0
			}
			return a >> uint(b)
		}
	}
	// OpShl
	return func(m *Machine) int64 {
		a, b := x(m), y(m)
		if a|b < 0 {
			m.fail(neg, min(a, b))
			return 0
		}
		if a == 0 {
			return 0
		}
		if b >= 63 || a > math.MaxInt64>>uint(b) {
			m.fail(ovf, 0)
			return 0
		}
		return a << uint(b)
	}
}

// bitBounds returns the bounds of a bitwise operator's or the Euclidean
// modulo's result.
func (c *compiler) bitBounds(e *spec.Expr, cx frameCtx) interval {
	a, b := c.bounds(e.Args[0], cx), c.bounds(e.Args[1], cx)
	if e.Op == spec.OpEMod {
		// 0 <= a mod b < |b|, and a mod b <= a when a >= 0.
		var hi *big.Int
		if !b.inf {
			hi = bigAbsMax(b)
			if hi.Sign() > 0 {
				hi.Sub(hi, big.NewInt(1))
			}
		}
		if !a.inf && a.lo.Sign() >= 0 && (hi == nil || a.hi.Cmp(hi) < 0) {
			hi = a.hi
		}
		if hi == nil {
			return unbounded()
		}
		return interval{lo: big.NewInt(0), hi: hi}
	}
	// A result exists only for operands in 0..MaxInt64.
	nonNeg := func(iv interval) int64 {
		iv = iv.clamp()
		if iv.hi.Sign() < 0 {
			return -1
		}
		return iv.hi.Int64()
	}
	ah, bh := nonNeg(a), nonNeg(b)
	if ah < 0 || bh < 0 {
		return span(0, 0)
	}
	switch e.Op {
	case spec.OpBitAnd:
		return span(0, min(ah, bh))
	case spec.OpBitOr, spec.OpBitXor:
		m := max(ah, bh)
		return span(0, int64(uint64(1)<<uint(bitLen(m))-1))
	case spec.OpShr:
		return span(0, ah)
	}
	// OpShl
	if ah == 0 {
		return span(0, 0)
	}
	if bh < 63 && ah <= math.MaxInt64>>uint(bh) {
		return span(0, ah<<uint(bh))
	}
	return span(0, math.MaxInt64)
}

// bitLen returns the number of bits of v >= 0.
func bitLen(v int64) int {
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

// genBitwise emits a bitwise operator or the Euclidean modulo, as
// compiler.bitwise computes it.
func (g *gen) bitwise(e *spec.Expr, cx frameCtx) string {
	x := g.scalar(e.Args[0], cx)
	y := g.scalar(e.Args[1], cx)
	t := g.id("t")
	if e.Op == spec.OpEMod {
		st := g.site(site{kind: RuntimeError, pos: e.Pos, msg: "modulo by zero"})
		g.emit("var %s int64\nif %s == 0 {\nm.fail(%s, 0)\n} else {\n%s = spec.EMod64(%s, %s)\n}", t, y, st, t, x, y)
		return t
	}
	neg := g.site(site{kind: RuntimeError, pos: e.Pos, msg: "negative operand %d of " + e.Op.String(), hasVal: true})
	g.emit("var %s int64\nif %s|%s < 0 {\nm.fail(%s, min(%s, %s))\n} else {", t, x, y, neg, x, y)
	switch e.Op {
	case spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor:
		op := map[spec.Op]string{spec.OpBitAnd: "&", spec.OpBitOr: "|", spec.OpBitXor: "^"}[e.Op]
		g.emit("%s = %s %s %s", t, x, op, y)
	case spec.OpShr:
		g.emit("if %s < 63 {\n%s = %s >> uint(%s)\n}", y, t, x, y)
	default: // OpShl
		ovf := g.site(site{kind: RuntimeError, pos: e.Pos, msg: "shift result does not fit a 64-bit integer"})
		g.emit("if %s != 0 {\nif %s >= 63 || %s > %d>>uint(%s) {\nm.fail(%s, 0)\n} else {\n%s = %s << uint(%s)\n}\n}", x, y, x, int64(math.MaxInt64), y, ovf, t, x, y)
	}
	g.emit("}")
	return t
}

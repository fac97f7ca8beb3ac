package spec

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Integers are exact: an intermediate result is an unbounded integer,
// and only a stored value must fit its range. Every stored value fits an
// int64 (a type bound must), so values are int64 in the engine; only
// constants and intermediate results may be larger. An integer constant
// that does not fit an int64 is an OpConst with Big set and Val saturated
// to the int64 bound of its sign, so that code that reads Val alone sees
// a value outside every range.

// MaxIntBits bounds the size of exact integers: every value, constant
// and intermediate result is less than 2^MaxIntBits in absolute value (it
// has at most 4932 decimal digits; a literal has at most 1000). An
// operation whose exact result would be larger is an error: a spec error
// when the checker folds it (a constant expression), a runtime error when
// the engine evaluates it. The bound keeps every single operation cheap,
// microseconds, whatever the spec: without it a literal squared forty
// times in one action, or a chain of constants each the square of the
// one before, takes longer than any deadline, in one uninterruptible
// multiplication.
const MaxIntBits = 16384

// ErrIntTooLarge is the error of an integer operation whose exact result
// does not fit [MaxIntBits] bits.
var ErrIntTooLarge = fmt.Errorf("integer result does not fit %d bits (the size bound on exact integers)", MaxIntBits)

// ErrDivByZero is the error of a division or modulo by zero.
var ErrDivByZero = errors.New("division by zero")

var errNotExact = errors.New("not an integer operator or comparison")

// IntTooLarge reports whether v does not fit [MaxIntBits] bits.
func IntTooLarge(v *big.Int) bool { return v.BitLen() > MaxIntBits }

// BigVal returns the exact value of the integer constant e (an OpConst).
func (e *Expr) BigVal() *big.Int {
	if e.Big != nil {
		return new(big.Int).Set(e.Big)
	}
	return big.NewInt(e.Val)
}

// IsBig reports whether e is a constant whose value does not fit an int64.
func (e *Expr) IsBig() bool { return e.Op == OpConst && e.Big != nil }

// Saturate returns v when it fits an int64, else the int64 bound of its
// sign; ok reports whether v fits.
func Saturate(v *big.Int) (int64, bool) {
	if v.IsInt64() {
		return v.Int64(), true
	}
	if v.Sign() < 0 {
		return math.MinInt64, false
	}
	return math.MaxInt64, false
}

// bigConst returns the constant v of type t: Big is set when v does not
// fit an int64.
func bigConst(t *Type, v *big.Int, pos Position) *Expr {
	x := &Expr{Op: OpConst, Type: t, Pos: pos}
	var ok bool
	if x.Val, ok = Saturate(v); !ok {
		x.Big = v
	}
	return x
}

// IsExactOp reports whether o is an integer operator whose result may
// not fit an int64 although its operands do (+ - * / % and unary -), or a
// comparison, which must compare such results exactly.
func IsExactOp(o Op) bool {
	switch o {
	case OpNeg, OpAdd, OpSub, OpMul, OpDiv, OpMod, OpEMod, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return true
	}
	return false
}

// EvalBig applies the integer operator o (see [IsExactOp]; b is unused
// for OpNeg) exactly. Division truncates toward zero and the remainder
// has the sign of the dividend, as with int64. ok is false for a
// division or modulo by zero and for a result that does not fit
// [MaxIntBits] bits ([EvalExact] tells them apart). A comparison gives 0
// or 1.
func EvalBig(o Op, a, b *big.Int) (v *big.Int, ok bool) {
	v, err := EvalExact(o, a, b)
	return v, err == nil
}

// EvalExact is [EvalBig] with its error: [ErrDivByZero], or
// [ErrIntTooLarge] when the result does not fit [MaxIntBits] bits. A
// product is refused from its operands' sizes, before it is computed, so
// that no call costs more than one operation on numbers of that size.
func EvalExact(o Op, a, b *big.Int) (*big.Int, error) {
	r := new(big.Int)
	switch o {
	case OpNeg:
		return r.Neg(a), nil // |-a| = |a|
	case OpAdd, OpSub:
		if o == OpAdd {
			r.Add(a, b)
		} else {
			r.Sub(a, b)
		}
		if IntTooLarge(r) {
			return nil, ErrIntTooLarge
		}
		return r, nil
	case OpMul:
		// The product of an m-bit and an n-bit number has m+n-1 or m+n
		// bits.
		if a.Sign() != 0 && b.Sign() != 0 && a.BitLen()+b.BitLen()-1 > MaxIntBits {
			return nil, ErrIntTooLarge
		}
		if r.Mul(a, b); IntTooLarge(r) {
			return nil, ErrIntTooLarge
		}
		return r, nil
	case OpDiv, OpMod:
		if b.Sign() == 0 {
			return nil, ErrDivByZero
		}
		if o == OpDiv {
			return r.Quo(a, b), nil // |a / b| <= |a|
		}
		return r.Rem(a, b), nil
	case OpEMod:
		if b.Sign() == 0 {
			return nil, ErrDivByZero
		}
		return r.Mod(a, b), nil // Euclidean: 0 <= r < |b|
	}
	c := a.Cmp(b)
	var t bool
	switch o {
	case OpEq:
		t = c == 0
	case OpNe:
		t = c != 0
	case OpLt:
		t = c < 0
	case OpLe:
		t = c <= 0
	case OpGt:
		t = c > 0
	case OpGe:
		t = c >= 0
	default:
		return nil, errNotExact
	}
	if t {
		r.SetInt64(1)
	}
	return r, nil
}

// addInt64 returns a+b; ok is false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// subInt64 returns a-b; ok is false when it overflows.
func subInt64(a, b int64) (int64, bool) {
	s := a - b
	return s, (s < a) == (b > 0)
}

// mulInt64 returns a*b; ok is false when it overflows.
func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true
	}
	if lo >= 1<<63 {
		return 0, false
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // -MinInt64 wraps to 1<<63, as wanted
	}
	return uint64(a)
}

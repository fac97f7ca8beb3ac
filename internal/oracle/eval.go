package oracle

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/wrapcheck/wrapcheck/spec"
)

// failure is a runtime error or a failed assert. It travels as a panic value from the expression that
// raised it to the statement (or unit) that catches it.
type failure struct {
	kind string // "runtime-error", "assertion"
	msg  string
}

// internalError is a panic value for IR the oracle does not understand.
type internalError struct{ msg string }

func fail(kind, format string, args ...any) {
	panic(&failure{kind: kind, msg: fmt.Sprintf(format, args...)})
}

func bad(format string, args ...any) {
	panic(&internalError{msg: fmt.Sprintf(format, args...)})
}

// try runs f and returns the failure it raised, or nil.
func try(f func()) (fl *failure) {
	defer func() {
		if r := recover(); r != nil {
			if x, ok := r.(*failure); ok {
				fl = x
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// test evaluates the condition e and returns the failure it raised.
func test(e *spec.Expr, en *env) (ok bool, f *failure) {
	f = try(func() { ok = truth(e, en) })
	return ok, f
}

// env is what an expression sees: the state and the unit's frame of
// locals. state is nil where no state is visible (agent assumptions).
type env struct {
	state []int64
	frame []int64
	// big holds the frame slots (lets) whose integer value does not fit
	// an int64: a let binding is exact, like every intermediate result.
	big map[int]*big.Int
}

func (en *env) clone() *env {
	c := &env{state: append([]int64(nil), en.state...), frame: append([]int64(nil), en.frame...)}
	if len(en.big) > 0 {
		c.big = make(map[int]*big.Int, len(en.big))
		for k, v := range en.big {
			c.big[k] = v
		}
	}
	return c
}

// bind stores the value of e in the frame at slot: exactly when e is an
// integer that does not fit an int64.
func bind(slot int, e *spec.Expr, en *env) {
	if e.Type.Kind == spec.IntKind || e.Type.Kind == spec.RangeKind {
		v := integer(e, en)
		if !v.IsInt64() {
			if en.big == nil {
				en.big = map[int]*big.Int{}
			}
			en.big[slot] = v
			en.frame[slot] = 0
			return
		}
		delete(en.big, slot)
		en.frame[slot] = v.Int64()
		return
	}
	v := eval(e, en)
	for i := range v {
		delete(en.big, slot+i)
	}
	copy(en.frame[slot:], v)
}

// local returns the frame slot's value, which must fit an int64 where it
// is used as one.
func local(slot int, en *env) int64 {
	if v, ok := en.big[slot]; ok {
		return stored(v)
	}
	return en.frame[slot]
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func truth(e *spec.Expr, en *env) bool {
	switch v := scalar(e, en); v {
	case 0:
		return false
	case 1:
		return true
	default:
		bad("%s: boolean value %d", e.Op, v)
		return false
	}
}

// width is the number of slots a value of t takes, computed from the type
// structure (and compared with the IR's Type.Width).
func width(t *spec.Type) int {
	var w int
	switch t.Kind {
	case spec.ArrayKind:
		w = int(t.Index.Size()) * width(t.Elem)
	case spec.RecordKind:
		for _, f := range t.Fields {
			w += width(f.Type)
		}
	default:
		w = 1
	}
	if w != t.Width {
		bad("type %s: width %d, the IR says %d", t.Kind, w, t.Width)
	}
	return w
}

// fieldOffset is the slot offset of the field at IR offset off in record
// type t, recomputed as the sum of the widths of the fields before it
// (and checked against the IR's).
func fieldOffset(t *spec.Type, off int64, ft *spec.Type) int {
	if t.Kind != spec.RecordKind {
		bad("field of a %s", t.Kind)
	}
	o := 0
	for _, f := range t.Fields {
		if int64(f.Offset) == off {
			if f.Offset != o || width(f.Type) != width(ft) {
				bad("field %s: offset %d, computed %d", f.Name, f.Offset, o)
			}
			return o
		}
		o += width(f.Type)
	}
	bad("no field at offset %d", off)
	return 0
}

// allValues returns every value of the finite type t, each as its slots, in
// increasing order of the slots (the last varying fastest): the values a
// choose or a quantifier ranges over. It is built from the type's
// structure alone: bool, the ranges of integers, enum and symmetric
// types, every subset of a set's element type, and the products of
// array elements and record fields.
func allValues(t *spec.Type) [][]int64 {
	var out [][]int64
	switch t.Kind {
	case spec.BoolKind, spec.RangeKind, spec.EnumKind, spec.SymmetricKind:
		lo, hi := t.Lo, t.Hi
		if t.Kind == spec.BoolKind {
			lo, hi = 0, 1
		}
		for v := lo; v <= hi; v++ {
			out = append(out, []int64{v})
		}
	case spec.SetKind:
		n := setSize(t.Elem)
		if n > 20 {
			bad("set of %d elements enumerated", n)
		}
		for v := int64(0); v < 1<<n; v++ {
			out = append(out, []int64{v})
		}
	case spec.ArrayKind, spec.RecordKind:
		var parts []*spec.Type
		if t.Kind == spec.ArrayKind {
			for i := int64(0); i < t.Index.Size(); i++ {
				parts = append(parts, t.Elem)
			}
		} else {
			for _, f := range t.Fields {
				parts = append(parts, f.Type)
			}
		}
		out = [][]int64{nil}
		for _, p := range parts {
			pv := allValues(p)
			var next [][]int64
			for _, prefix := range out {
				for _, v := range pv {
					next = append(next, append(append([]int64(nil), prefix...), v...))
				}
			}
			out = next
			if len(out) > 1<<20 {
				bad("%s with more than %d values enumerated", t.Kind, 1<<20)
			}
		}
	default:
		bad("values of a %s", t.Kind)
	}
	return out
}

// setSize returns the number of possible elements of a set of t.
func setSize(t *spec.Type) int64 {
	if !t.IsFinite() || t.Size() > 64 || t.Size() < 1 {
		bad("set of %s with %d elements", t.Kind, t.Size())
	}
	return t.Size()
}

func setMask(t *spec.Type) int64 {
	if n := setSize(t); n < 64 {
		return 1<<n - 1
	}
	return -1
}

// integer evaluates an integer expression exactly: intermediate results
// are unbounded (math/big, always, with no analysis), and only a stored
// value must fit (scalar checks it).
func integer(e *spec.Expr, en *env) *big.Int {
	arg := func(i int) *big.Int { return integer(e.Args[i], en) }
	switch e.Op {
	case spec.OpConst:
		if e.Big != nil {
			return new(big.Int).Set(e.Big)
		}
		return big.NewInt(e.Val)
	case spec.OpLocal:
		if v, ok := en.big[e.Slot]; ok {
			return new(big.Int).Set(v)
		}
	case spec.OpNeg:
		return new(big.Int).Neg(arg(0))
	case spec.OpAdd:
		return bounded(new(big.Int).Add(arg(0), arg(1)))
	case spec.OpSub:
		return bounded(new(big.Int).Sub(arg(0), arg(1)))
	case spec.OpMul:
		a, b := arg(0), arg(1)
		if a.BitLen()+b.BitLen() > 2*spec.MaxIntBits {
			bounded(new(big.Int).Lsh(big.NewInt(1), spec.MaxIntBits)) // too large: no need to compute it
		}
		return bounded(new(big.Int).Mul(a, b))
	case spec.OpDiv, spec.OpMod:
		a, b := arg(0), arg(1)
		if b.Sign() == 0 {
			fail("runtime-error", "division by zero")
		}
		// Truncated toward zero, and the remainder of that, as
		// docs/language.md defines them (Quo and Rem, not Div and Mod).
		if e.Op == spec.OpDiv {
			return new(big.Int).Quo(a, b)
		}
		return new(big.Int).Rem(a, b)
	case spec.OpEMod:
		a, b := arg(0), arg(1)
		if b.Sign() == 0 {
			fail("runtime-error", "modulo by zero")
		}
		// Euclidean: 0 <= r < |b| (big.Int's Mod is Euclidean).
		return new(big.Int).Mod(a, b)
	case spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr:
		return bitwise(e.Op, arg(0), arg(1))
	case spec.OpCond:
		if truth(e.Args[0], en) {
			return arg(1)
		}
		return arg(2)
	case spec.OpLet:
		let(e, en)
		return arg(len(e.Args) - 1)
	}
	return big.NewInt(scalar(e, en))
}

// bitwise applies a bitwise operator as docs/language.md defines it: its
// operands are non-negative integers that fit 64 bits, and the result of
// << must fit 64 bits.
func bitwise(op spec.Op, a, b *big.Int) *big.Int {
	for _, v := range []*big.Int{a, b} {
		if v.Sign() < 0 {
			fail("runtime-error", "negative operand %s of %s", v, op)
		}
		stored(v)
	}
	r := new(big.Int)
	switch op {
	case spec.OpBitAnd:
		return r.And(a, b)
	case spec.OpBitOr:
		return r.Or(a, b)
	case spec.OpBitXor:
		return r.Xor(a, b)
	case spec.OpShr:
		if b.Int64() >= 64 {
			return r
		}
		return r.Rsh(a, uint(b.Int64()))
	}
	if a.Sign() == 0 {
		return r
	}
	if b.Int64() >= 64 {
		fail("runtime-error", "shift result does not fit a 64-bit integer")
	}
	r.Lsh(a, uint(b.Int64()))
	if !r.IsInt64() {
		fail("runtime-error", "shift result does not fit a 64-bit integer")
	}
	return r
}

// bounded returns v, a result of + - or *: exact integers have at most
// spec.MaxIntBits bits (docs/language.md), a larger result is a runtime
// error where it is computed.
func bounded(v *big.Int) *big.Int {
	if v.BitLen() > spec.MaxIntBits {
		fail("runtime-error", "integer result does not fit %d bits (the size bound on exact integers)", spec.MaxIntBits)
	}
	return v
}

// isArith reports whether e is an integer operator evaluated by integer.
func isArith(e *spec.Expr) bool {
	switch e.Op {
	case spec.OpNeg, spec.OpAdd, spec.OpSub, spec.OpMul, spec.OpDiv, spec.OpMod,
		spec.OpEMod, spec.OpBitAnd, spec.OpBitOr, spec.OpBitXor, spec.OpShl, spec.OpShr:
		return true
	case spec.OpConst:
		return e.Big != nil
	}
	return false
}

// stored returns v, which is stored or used as a value: it must fit an
// int64 (every range does).
func stored(v *big.Int) int64 {
	if !v.IsInt64() {
		fail("runtime-error", "value %s does not fit a 64-bit integer", v)
	}
	return v.Int64()
}

// cmpInt compares the two integer operands of e exactly.
func cmpInt(e *spec.Expr, en *env) int {
	return integer(e.Args[0], en).Cmp(integer(e.Args[1], en))
}

// eval returns the value of e: a fresh slice of e.Type's width.
func eval(e *spec.Expr, en *env) []int64 {
	switch e.Op {
	case spec.OpVar:
		if en.state == nil {
			bad("state variable read where no state is visible")
		}
		return append([]int64(nil), en.state[e.Slot:e.Slot+width(e.Type)]...)
	case spec.OpLocal:
		if width(e.Type) == 1 {
			return []int64{local(e.Slot, en)}
		}
		return append([]int64(nil), en.frame[e.Slot:e.Slot+width(e.Type)]...)
	case spec.OpIndex:
		if e.IsLocation() {
			return read(locate(e, en), en)
		}
		arr := eval(e.Args[0], en)
		at := e.Args[0].Type
		if at.Kind != spec.ArrayKind {
			bad("index into a %s", at.Kind)
		}
		i := scalar(e.Args[1], en)
		if i < at.Index.Lo || i > at.Index.Hi {
			fail("runtime-error", "index %d out of range %d..%d", i, at.Index.Lo, at.Index.Hi)
		}
		w := width(at.Elem)
		k := int(i-at.Index.Lo) * w
		return arr[k : k+w]
	case spec.OpField:
		if e.IsLocation() {
			return read(locate(e, en), en)
		}
		r := eval(e.Args[0], en)
		o := fieldOffset(e.Args[0].Type, e.Val, e.Type)
		return r[o : o+width(e.Type)]
	case spec.OpRecordLit:
		var out []int64
		if e.Type.Kind == spec.ArrayKind {
			// an array literal or comprehension: the elements in index order
			for _, a := range e.Args {
				v := eval(a, en)
				if len(v) != width(e.Type.Elem) {
					bad("array literal element: %d slots for %d", len(v), width(e.Type.Elem))
				}
				out = append(out, v...)
			}
			return out
		}
		for i, f := range e.Type.Fields {
			v := eval(e.Args[i], en)
			if len(v) != width(f.Type) {
				bad("record literal field %s: %d slots for %d", f.Name, len(v), width(f.Type))
			}
			out = append(out, v...)
		}
		return out
	case spec.OpCond:
		if truth(e.Args[0], en) {
			return eval(e.Args[1], en)
		}
		return eval(e.Args[2], en)
	case spec.OpLet:
		let(e, en)
		return eval(e.Args[len(e.Args)-1], en)
	}
	return []int64{scalar(e, en)}
}

// read returns a copy of the value at l.
func read(l loc, en *env) []int64 {
	src := en.frame
	if !l.frame {
		if en.state == nil {
			bad("state variable read where no state is visible")
		}
		src = en.state
	}
	return append([]int64(nil), src[l.off:l.off+width(l.t)]...)
}

// let stores the bindings of an OpLet in the frame.
func let(e *spec.Expr, en *env) {
	for i, b := range e.Binds {
		bind(b, e.Args[i], en)
	}
}

// scalar evaluates an expression of a one-slot type.
func scalar(e *spec.Expr, en *env) int64 {
	if width(e.Type) != 1 {
		bad("%s of type %s is not a scalar", e.Op, e.Type.Kind)
	}
	arg := func(i int) int64 { return scalar(e.Args[i], en) }
	if isArith(e) {
		return stored(integer(e, en))
	}
	switch e.Op {
	case spec.OpConst:
		return e.Val
	case spec.OpVar:
		if en.state == nil {
			bad("state variable read where no state is visible")
		}
		return en.state[e.Slot]
	case spec.OpLocal:
		return local(e.Slot, en)
	case spec.OpIndex, spec.OpField, spec.OpRecordLit:
		return eval(e, en)[0]
	case spec.OpNot:
		return b2i(!truth(e.Args[0], en))
	case spec.OpAnd:
		return b2i(truth(e.Args[0], en) && truth(e.Args[1], en))
	case spec.OpOr:
		return b2i(truth(e.Args[0], en) || truth(e.Args[1], en))
	case spec.OpImplies:
		return b2i(!truth(e.Args[0], en) || truth(e.Args[1], en))
	case spec.OpEq, spec.OpNe:
		if e.Args[0].Type.Kind == spec.IntKind || e.Args[0].Type.Kind == spec.RangeKind {
			return b2i((cmpInt(e, en) == 0) == (e.Op == spec.OpEq))
		}
		a, b := eval(e.Args[0], en), eval(e.Args[1], en)
		if len(a) != len(b) {
			bad("== between values of %d and %d slots", len(a), len(b))
		}
		eq := true
		for i := range a {
			eq = eq && a[i] == b[i]
		}
		return b2i(eq == (e.Op == spec.OpEq))
	case spec.OpLt:
		return b2i(cmpInt(e, en) < 0)
	case spec.OpLe:
		return b2i(cmpInt(e, en) <= 0)
	case spec.OpGt:
		return b2i(cmpInt(e, en) > 0)
	case spec.OpGe:
		return b2i(cmpInt(e, en) >= 0)
	case spec.OpIn:
		xb, s := integer(e.Args[0], en), arg(1)
		if !xb.IsInt64() {
			return 0 // not a value of the element type: not an element
		}
		x := xb.Int64()
		el := e.Args[1].Type.Elem
		setSize(el)
		if x < el.Lo || x > el.Hi {
			return 0 // not a value of the element type: not an element
		}
		return s >> uint(x-el.Lo) & 1
	case spec.OpSubset:
		return b2i(arg(0)&^arg(1) == 0)
	case spec.OpUnion:
		return arg(0) | arg(1)
	case spec.OpIntersect:
		return arg(0) & arg(1)
	case spec.OpMinus:
		return arg(0) &^ arg(1)
	case spec.OpCard:
		return int64(bits.OnesCount64(uint64(arg(0))))
	case spec.OpSetLit:
		el := e.Type.Elem
		setSize(el)
		var s int64
		for i := range e.Args {
			x := arg(i)
			if x < el.Lo || x > el.Hi {
				fail("runtime-error", "set element %d outside %d..%d", x, el.Lo, el.Hi)
			}
			s |= 1 << uint(x-el.Lo)
		}
		return s
	case spec.OpCond:
		if truth(e.Args[0], en) {
			return arg(1)
		}
		return arg(2)
	case spec.OpForall, spec.OpExists, spec.OpCount:
		// A finite conjunction (disjunction) evaluated left to right with
		// short-circuit, like `and` (`or`); count evaluates every body.
		var n int64
		for _, v := range allValues(e.Dom) {
			copy(en.frame[e.Slot:], v)
			t := truth(e.Args[0], en)
			switch {
			case e.Op == spec.OpForall && !t:
				return 0
			case e.Op == spec.OpExists && t:
				return 1
			case t:
				n++
			}
		}
		switch e.Op {
		case spec.OpForall:
			return 1
		case spec.OpExists:
			return 0
		}
		return n
	case spec.OpLet:
		let(e, en)
		return arg(len(e.Args) - 1)
	}
	bad("unexpected operator %s", e.Op)
	return 0
}

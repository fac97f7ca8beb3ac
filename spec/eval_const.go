package spec

import (
	"errors"
	"math"
	"math/bits"
)

// This file holds the evaluation of constant operators (for [Fold]) and
// a small evaluator of IR expressions over a frame (no state), used by
// [Vet] to test agent assumptions. The engine has its own, faster
// evaluator.

// fold is [foldNode] for the checker: the constant it gives depends on
// a family index (see checker.instDep) when one of e's operands does.
//
// A constant result that does not fit MaxIntBits bits is an error at e,
// except in an inlined fn body (quiet), where the operation is kept to
// fail at run time if it is ever evaluated: the instance may be dead code
// (a branch the constant arguments never take).
func (c *checker) fold(e *Expr) *Expr {
	r, tooLarge := foldNodeSize(e)
	if tooLarge && c.quiet == 0 {
		c.errorf(e.Pos, "%v", ErrIntTooLarge)
		return c.bad(e.Pos)
	}
	if r == e || r.Op != OpConst {
		return r
	}
	for _, x := range e.Args {
		if c.instDep[x] {
			c.instDep[r] = true
			break
		}
	}
	return r
}

var errRuntime = errors.New("runtime error")

// errOverflow is an integer result that does not fit an int64: the
// caller computes it exactly, or gives up.
var errOverflow = errors.New("integer overflow")

// evalOp applies a scalar operator to constant operands.
func evalOp(e *Expr, v []int64) (int64, error) {
	b := func(x bool) int64 {
		if x {
			return 1
		}
		return 0
	}
	switch e.Op {
	case OpNot:
		return 1 - v[0], nil
	case OpNeg:
		if v[0] == math.MinInt64 {
			return 0, errOverflow
		}
		return -v[0], nil
	case OpAnd:
		return b(v[0] != 0 && v[1] != 0), nil
	case OpOr:
		return b(v[0] != 0 || v[1] != 0), nil
	case OpImplies:
		return b(v[0] == 0 || v[1] != 0), nil
	case OpEq:
		return b(v[0] == v[1]), nil
	case OpNe:
		return b(v[0] != v[1]), nil
	case OpLt:
		return b(v[0] < v[1]), nil
	case OpLe:
		return b(v[0] <= v[1]), nil
	case OpGt:
		return b(v[0] > v[1]), nil
	case OpGe:
		return b(v[0] >= v[1]), nil
	case OpAdd, OpSub, OpMul:
		f := addInt64
		if e.Op == OpSub {
			f = subInt64
		} else if e.Op == OpMul {
			f = mulInt64
		}
		r, ok := f(v[0], v[1])
		if !ok {
			return 0, errOverflow
		}
		return r, nil
	case OpDiv:
		if v[1] == 0 {
			return 0, errRuntime
		}
		if v[0] == math.MinInt64 && v[1] == -1 {
			return 0, errOverflow
		}
		return v[0] / v[1], nil
	case OpMod:
		if v[1] == 0 {
			return 0, errRuntime
		}
		if v[1] == -1 {
			return 0, nil
		}
		return v[0] % v[1], nil
	case OpEMod:
		if v[1] == 0 {
			return 0, errRuntime
		}
		return EMod64(v[0], v[1]), nil
	case OpBitAnd, OpBitOr, OpBitXor, OpShl, OpShr:
		return Bitwise(e.Op, v[0], v[1])
	case OpIn:
		el := e.Args[1].Type.Elem
		if v[0] < el.Lo || v[0] > el.Hi {
			return 0, nil
		}
		return b(v[1]&(1<<(v[0]-el.Lo)) != 0), nil
	case OpSubset:
		return b(v[0]&^v[1] == 0), nil
	case OpUnion:
		return v[0] | v[1], nil
	case OpIntersect:
		return v[0] & v[1], nil
	case OpMinus:
		return v[0] &^ v[1], nil
	case OpCard:
		return int64(bits.OnesCount64(uint64(v[0]))), nil
	}
	return 0, errRuntime
}

// frameEval evaluates IR expressions that read no state, over a frame.
type frameEval struct {
	frame []int64
	steps int // evaluation budget; eval fails when it runs out
}

// eval returns the Type.Width scalars of e's value.
func (ev *frameEval) eval(e *Expr) ([]int64, error) {
	if ev.steps--; ev.steps < 0 {
		return nil, errRuntime
	}
	switch e.Op {
	case OpConst:
		return []int64{e.Val}, nil
	case OpLocal:
		if e.Slot+e.Type.Width > len(ev.frame) {
			return nil, errRuntime
		}
		return append([]int64(nil), ev.frame[e.Slot:e.Slot+e.Type.Width]...), nil
	case OpVar:
		return nil, errRuntime // no state here
	case OpIndex:
		arr, err := ev.eval(e.Args[0])
		if err != nil {
			return nil, err
		}
		i, err := ev.scalar(e.Args[1])
		if err != nil {
			return nil, err
		}
		t := e.Args[0].Type
		if i < t.Index.Lo || i > t.Index.Hi {
			return nil, errRuntime
		}
		w := t.Elem.Width
		off := int(i-t.Index.Lo) * w
		return arr[off : off+w], nil
	case OpField:
		r, err := ev.eval(e.Args[0])
		if err != nil {
			return nil, err
		}
		off := int(e.Val)
		return r[off : off+e.Type.Width], nil
	case OpAnd, OpOr, OpImplies:
		a, err := ev.scalar(e.Args[0])
		if err != nil {
			return nil, err
		}
		if (e.Op == OpAnd && a == 0) || (e.Op == OpOr && a != 0) {
			return []int64{a}, nil
		}
		if e.Op == OpImplies && a == 0 {
			return []int64{1}, nil
		}
		bv, err := ev.scalar(e.Args[1])
		if err != nil {
			return nil, err
		}
		return []int64{boolInt(bv != 0)}, nil
	case OpEq, OpNe:
		a, err := ev.eval(e.Args[0])
		if err != nil {
			return nil, err
		}
		bv, err := ev.eval(e.Args[1])
		if err != nil {
			return nil, err
		}
		eq := len(a) == len(bv)
		for i := 0; eq && i < len(a); i++ {
			eq = a[i] == bv[i]
		}
		return []int64{boolInt(eq == (e.Op == OpEq))}, nil
	case OpCond:
		cv, err := ev.scalar(e.Args[0])
		if err != nil {
			return nil, err
		}
		if cv != 0 {
			return ev.eval(e.Args[1])
		}
		return ev.eval(e.Args[2])
	case OpSetLit:
		el := e.Type.Elem
		m := int64(0)
		for _, x := range e.Args {
			v, err := ev.scalar(x)
			if err != nil {
				return nil, err
			}
			if v < el.Lo || v > el.Hi {
				return nil, errRuntime
			}
			m |= 1 << (v - el.Lo)
		}
		return []int64{m}, nil
	case OpRecordLit:
		var out []int64
		for _, x := range e.Args {
			v, err := ev.eval(x)
			if err != nil {
				return nil, err
			}
			out = append(out, v...)
		}
		return out, nil
	case OpForall, OpExists, OpCount:
		n := int64(0)
		leaves, ok := DomainLeaves(e.Dom)
		if !ok || e.Slot+len(leaves) > len(ev.frame) {
			return nil, errRuntime
		}
		vals := ev.frame[e.Slot : e.Slot+len(leaves)]
		for i, l := range leaves {
			vals[i] = l[0]
		}
		for more := true; more; more = NextValue(vals, leaves) {
			b, err := ev.scalar(e.Args[0])
			if err != nil {
				return nil, err
			}
			switch {
			case e.Op == OpForall && b == 0:
				return []int64{0}, nil
			case e.Op == OpExists && b != 0:
				return []int64{1}, nil
			case b != 0:
				n++
			}
		}
		if e.Op == OpForall {
			return []int64{1}, nil
		}
		if e.Op == OpExists {
			return []int64{0}, nil
		}
		return []int64{n}, nil
	case OpLet:
		last := len(e.Args) - 1
		for i := 0; i < last; i++ {
			v, err := ev.eval(e.Args[i])
			if err != nil {
				return nil, err
			}
			s := e.Binds[i]
			if s+len(v) > len(ev.frame) {
				return nil, errRuntime
			}
			copy(ev.frame[s:], v)
		}
		return ev.eval(e.Args[last])
	}
	if e.Op.IsTemporal() {
		return nil, errRuntime
	}
	vals := make([]int64, len(e.Args))
	for i, x := range e.Args {
		v, err := ev.scalar(x)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	v, err := evalOp(e, vals)
	if err != nil {
		return nil, err
	}
	return []int64{v}, nil
}

func (ev *frameEval) scalar(e *Expr) (int64, error) {
	v, err := ev.eval(e)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, errRuntime
	}
	return v[0], nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

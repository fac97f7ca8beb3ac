package oracle

import (
	"cmp"

	"github.com/wrapcheck/wrapcheck/spec"
)

// leaves lists the scalar types of a value of t, slot by slot.
func leaves(t *spec.Type, out []*spec.Type) []*spec.Type {
	switch t.Kind {
	case spec.ArrayKind:
		for i := int64(0); i < t.Index.Size(); i++ {
			out = leaves(t.Elem, out)
		}
	case spec.RecordKind:
		for _, f := range t.Fields {
			out = leaves(f.Type, out)
		}
	default:
		out = append(out, t)
	}
	return out
}

// zero is the zero value of a scalar type: false, lo, the first member,
// the first identity, {}.
func zero(t *spec.Type) int64 {
	switch t.Kind {
	case spec.BoolKind, spec.EnumKind, spec.SymmetricKind, spec.SetKind:
		return 0
	case spec.RangeKind:
		return t.Lo
	}
	bad("zero value of a %s", t.Kind)
	return 0
}

// fits reports whether the scalar v is a value of type t. Intermediate
// integers (IntKind) are unbounded.
func fits(t *spec.Type, v int64) bool {
	switch t.Kind {
	case spec.IntKind:
		return true
	case spec.SetKind:
		return v&^setMask(t.Elem) == 0
	case spec.BoolKind:
		return v == 0 || v == 1
	case spec.RangeKind, spec.EnumKind, spec.SymmetricKind:
		return v >= t.Lo && v <= t.Hi
	}
	bad("value of a %s", t.Kind)
	return false
}

// loc is a storage location: width slots of the state or the frame.
type loc struct {
	frame bool
	off   int
	t     *spec.Type
}

// locate resolves an assignment target. An index outside its array is a
// runtime error.
func locate(e *spec.Expr, en *env) loc {
	switch e.Op {
	case spec.OpVar:
		return loc{off: e.Slot, t: e.Type}
	case spec.OpLocal:
		return loc{frame: true, off: e.Slot, t: e.Type}
	case spec.OpField:
		l := locate(e.Args[0], en)
		return loc{frame: l.frame, off: l.off + fieldOffset(l.t, e.Val, e.Type), t: e.Type}
	case spec.OpIndex:
		l := locate(e.Args[0], en)
		at := l.t
		if at.Kind != spec.ArrayKind {
			bad("index into a %s", at.Kind)
		}
		i := scalar(e.Args[1], en)
		if i < at.Index.Lo || i > at.Index.Hi {
			fail("runtime-error", "index %d out of range %d..%d", i, at.Index.Lo, at.Index.Hi)
		}
		return loc{frame: l.frame, off: l.off + int(i-at.Index.Lo)*width(at.Elem), t: e.Type}
	}
	bad("assignment to a %s", e.Op)
	return loc{}
}

// store writes v into l. A scalar that is not a value of its location's
// type (for a state slot, the type its variable declares) is a runtime
// error, and then nothing is written.
func (x *interp) store(l loc, v []int64, en *env) {
	ts := []*spec.Type{l.t}
	if !l.t.IsScalar() {
		ts = leaves(l.t, nil)
	}
	if len(ts) != len(v) {
		bad("storing %d slots into %d", len(v), len(ts))
	}
	for i, t := range ts {
		if !l.frame {
			st := x.slotType[l.off+i]
			if t.Kind != st.Kind || t.Lo != st.Lo || t.Hi != st.Hi {
				bad("slot %d is a %s %d..%d, the target says %s %d..%d", l.off+i, st.Kind, st.Lo, st.Hi, t.Kind, t.Lo, t.Hi)
			}
		}
		if !fits(t, v[i]) {
			if t.Kind == spec.SetKind {
				fail("runtime-error", "set value %#x out of range", v[i])
			}
			fail("runtime-error", "value %d out of range %d..%d", v[i], t.Lo, t.Hi)
		}
	}
	dst := en.state
	if l.frame {
		dst = en.frame
		for i := range v {
			delete(en.big, l.off+i)
		}
	}
	copy(dst[l.off:], v)
}

// exec runs ss in en and then k, once per branch; a failing branch is
// passed to failed and goes no further. en belongs to the caller's branch
// and is changed in place.
func (x *interp) exec(ss []*spec.Stmt, en *env, k func(*env), failed func(*failure, *env)) {
	if len(ss) == 0 {
		k(en)
		return
	}
	s, rest := ss[0], ss[1:]
	next := func(en *env) { x.exec(rest, en, k, failed) }
	switch s.Op {
	case spec.SSkip:
		next(en)
	case spec.SAssign:
		if f := try(func() {
			if s.Target.Op == spec.OpLocal && s.Target.Type.Kind == spec.IntKind {
				bind(s.Target.Slot, s.Value, en) // a let: exact
				return
			}
			x.store(locate(s.Target, en), eval(s.Value, en), en)
		}); f != nil {
			failed(f, en)
			return
		}
		next(en)
	case spec.SLet:
		if f := try(func() { bind(s.Slot, s.Value, en) }); f != nil {
			failed(f, en)
			return
		}
		next(en)
	case spec.SAssert:
		ok, f := test(s.Cond, en)
		if f == nil && !ok {
			f = &failure{kind: "assertion", msg: cmp.Or(s.Msg, "assertion failed")}
		}
		if f != nil {
			failed(f, en)
			return
		}
		next(en)
	case spec.SIf:
		c, f := test(s.Cond, en)
		if f != nil {
			failed(f, en)
			return
		}
		if c {
			x.exec(s.Body, en, next, failed)
		} else {
			x.exec(s.Else, en, next, failed)
		}
	case spec.SMatch:
		var v int64
		if f := try(func() { v = scalar(s.Value, en) }); f != nil {
			failed(f, en)
			return
		}
		for _, c := range s.Cases {
			for _, cv := range c.Values {
				if cv == v {
					x.exec(c.Body, en, next, failed)
					return
				}
			}
		}
		if !s.HasElse {
			bad("match without else has no case for %d", v)
		}
		x.exec(s.Else, en, next, failed)
	case spec.SChoose:
		if s.Dom == nil {
			bad("choose without a domain")
		}
		for _, v := range allValues(s.Dom) {
			b := en.clone()
			copy(b.frame[s.Slot:], v)
			ok := true
			if s.Cond != nil {
				var f *failure
				if ok, f = test(s.Cond, b); f != nil {
					failed(f, b)
					continue
				}
			}
			if ok {
				x.exec(s.Body, b, next, failed)
			}
		}
	case spec.SAsk:
		x.ask(s, en, next, failed)
	default:
		bad("unexpected statement %d", s.Op)
	}
}

// ask branches over every answer of the agent that its assumption allows,
// in increasing order of the answer's slots (the last varying fastest).
func (x *interp) ask(s *spec.Stmt, en *env, next func(*env), failed func(*failure, *env)) {
	ag := x.m.Agents[s.Agent]
	var args [][]int64
	if f := try(func() {
		for _, a := range s.Args {
			args = append(args, eval(a, en))
		}
	}); f != nil {
		failed(f, en)
		return
	}
	if len(args) != len(ag.Params) {
		bad("agent %s: %d arguments for %d parameters", ag.Name, len(args), len(ag.Params))
	}
	ans, ok := x.answers[s.Agent]
	if !ok {
		ans = values(ag.Result)
		x.answers[s.Agent] = ans
	}
	for _, ans := range ans {
		ok := true
		if ag.Assume != nil {
			a := &env{frame: make([]int64, ag.Frame)}
			for i, v := range args {
				if len(v) != width(ag.Params[i]) {
					bad("agent %s: argument %d has %d slots", ag.Name, i, len(v))
				}
				copy(a.frame[ag.ParamSlots[i]:], v)
			}
			copy(a.frame[ag.ResultSlot:], ans)
			var f *failure
			if ok, f = test(ag.Assume, a); f != nil {
				failed(f, en)
				continue
			}
		}
		if !ok {
			continue
		}
		b := en.clone()
		if f := try(func() {
			if s.Target != nil {
				x.store(locate(s.Target, b), ans, b)
			} else {
				copy(b.frame[s.Slot:], ans)
			}
		}); f != nil {
			failed(f, b)
			continue
		}
		next(b)
	}
}

// values lists every value of t in increasing order: scalars from their
// lowest value, sets by mask, compound values with the last slot varying
// fastest.
func values(t *spec.Type) [][]int64 {
	out := [][]int64{nil}
	for _, lt := range leaves(t, nil) {
		var lo, hi int64
		switch lt.Kind {
		case spec.SetKind:
			lo, hi = 0, setMask(lt.Elem)
			if setSize(lt.Elem) > 16 {
				bad("answers of a set of %d elements", setSize(lt.Elem))
			}
		case spec.BoolKind, spec.RangeKind, spec.EnumKind, spec.SymmetricKind:
			lo, hi = lt.Lo, lt.Hi
		default:
			bad("answers of a %s", lt.Kind)
		}
		var next [][]int64
		for _, p := range out {
			for v := lo; v <= hi; v++ {
				next = append(next, append(append([]int64(nil), p...), v))
			}
		}
		out = next
		if len(out) > 1<<20 {
			bad("agent with more than 2^20 answers")
		}
	}
	return out
}

package spec

// Substitute returns e with every free read of the scalar local at frame
// slot replaced by val: an OpLocal of that slot, outside the scope of a
// quantifier or let that binds the slot again. e is not modified, and the
// subexpressions that do not read the slot are shared with it. ok is
// false when e reads the slot as part of a compound local (one whose
// slots cover it), which no substitution of the scalar can express. The
// result is not folded: see [Fold]. The recursion is as deep as e is
// tall, which the front end bounds.
func Substitute(e *Expr, slot int, val *Expr) (out *Expr, ok bool) {
	if e == nil {
		return nil, true
	}
	switch e.Op {
	case OpLocal:
		switch {
		case e.Slot == slot && scalarType(e.Type):
			return val, true
		case e.Slot <= slot && slot < e.Slot+slotWidth(e.Type):
			return nil, false // a compound local covering the slot
		}
		return e, true
	case OpForall, OpExists, OpCount:
		if e.Slot <= slot && slot < e.Slot+slotWidth(e.Dom) {
			return e, true // the quantifier binds the slot again
		}
	}
	var args []*Expr // nil until an operand changes
	for i, a := range e.Args {
		s, ok := Substitute(a, slot, val)
		if !ok {
			return nil, false
		}
		if s != a && args == nil {
			args = make([]*Expr, len(e.Args))
			copy(args, e.Args[:i])
		}
		if args != nil {
			args[i] = s
		}
		if e.Op == OpLet && i < len(e.Binds) && e.Binds[i] <= slot && slot < e.Binds[i]+slotWidth(a.Type) {
			// The binding hides the slot from the bindings after it
			// and from the body.
			if args != nil {
				copy(args[i+1:], e.Args[i+1:])
			}
			break
		}
	}
	if args == nil {
		return e, true
	}
	x := *e
	x.Args = args
	return &x, true
}

// slotWidth returns the number of frame slots a value of t takes.
func slotWidth(t *Type) int {
	if t == nil || t.Width < 1 {
		return 1
	}
	return t.Width
}

// scalarType reports whether t is a scalar type; a nil type (an IR built
// by hand) counts as one.
func scalarType(t *Type) bool { return t == nil || t.IsScalar() }

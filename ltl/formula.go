package ltl

import (
	"fmt"
	"sort"
	"strings"
)

// Op is the operator of a [Formula] node.
type Op uint8

// Formula operators. A Formula is always in negation normal form, so
// negation appears only on atoms (OpNotAtom).
const (
	OpTrue    Op = iota
	OpFalse      // false
	OpAtom       // atom Atom
	OpNotAtom    // not atom Atom
	OpAnd        // conjunction of Args (at least two, sorted, distinct)
	OpOr         // disjunction of Args (at least two, sorted, distinct)
	OpNext       // X Args[0]
	OpUntil      // Args[0] U Args[1]
	OpRelease    // Args[0] R Args[1]
)

var formulaOpNames = [...]string{"true", "false", "atom", "!atom", "and", "or", "X", "U", "R"}

func (o Op) String() string {
	if int(o) < len(formulaOpNames) {
		return formulaOpNames[o]
	}
	return "op?"
}

// Formula is an LTL formula over atomic propositions numbered from 0, in
// negation normal form. Formulas are built only with the constructors of
// this package ([True], [Atom], [Not], [And], [Until], ...), which keep
// them in negation normal form and apply the usual simplifications
// (constant folding, idempotence, F F a = F a, G G a = G a, X true = true,
// ...). A Formula is immutable and safe for concurrent use; two formulas
// are equal exactly when their [Formula.Key] are equal.
type Formula struct {
	Op   Op
	Atom int        // OpAtom, OpNotAtom: the atom index
	Args []*Formula // operands, see [Op]
	key  string
}

var (
	trueF  = &Formula{Op: OpTrue, key: "t"}
	falseF = &Formula{Op: OpFalse, key: "f"}
)

// Key returns a canonical string that identifies f structurally.
func (f *Formula) Key() string { return f.key }

// True returns the formula true.
func True() *Formula { return trueF }

// False returns the formula false.
func False() *Formula { return falseF }

// Atom returns the atomic proposition number i (i >= 0).
func Atom(i int) *Formula {
	return &Formula{Op: OpAtom, Atom: i, key: "p" + itoa(i)}
}

func notAtom(i int) *Formula {
	return &Formula{Op: OpNotAtom, Atom: i, key: "!p" + itoa(i)}
}

func itoa(i int) string { return fmt.Sprint(i) }

func mk(op Op, args ...*Formula) *Formula {
	var b strings.Builder
	b.WriteString(formulaOpNames[op])
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(a.key)
	}
	b.WriteByte(')')
	return &Formula{Op: op, Args: args, key: b.String()}
}

// Not returns the negation of f, pushed down to the atoms (¬X a = X ¬a,
// ¬(a U b) = ¬a R ¬b, ¬(a R b) = ¬a U ¬b).
func Not(f *Formula) *Formula {
	switch f.Op {
	case OpTrue:
		return falseF
	case OpFalse:
		return trueF
	case OpAtom:
		return notAtom(f.Atom)
	case OpNotAtom:
		return Atom(f.Atom)
	case OpAnd, OpOr:
		args := make([]*Formula, len(f.Args))
		for i, a := range f.Args {
			args[i] = Not(a)
		}
		if f.Op == OpAnd {
			return Or(args...)
		}
		return And(args...)
	case OpNext:
		return Next(Not(f.Args[0]))
	case OpUntil:
		return Release(Not(f.Args[0]), Not(f.Args[1]))
	case OpRelease:
		return Until(Not(f.Args[0]), Not(f.Args[1]))
	}
	panic("wrapcheck internal error: ltl: bad formula op")
}

// And returns the conjunction of args (true when args is empty).
func And(args ...*Formula) *Formula { return junction(OpAnd, args) }

// Or returns the disjunction of args (false when args is empty).
func Or(args ...*Formula) *Formula { return junction(OpOr, args) }

func junction(op Op, in []*Formula) *Formula {
	unit, zero := trueF, falseF // neutral and absorbing elements of And
	if op == OpOr {
		unit, zero = falseF, trueF
	}
	var flat []*Formula
	for _, a := range in {
		switch {
		case a.Op == op:
			flat = append(flat, a.Args...)
		case a == unit || a.Op == unit.Op:
		case a.Op == zero.Op:
			return zero
		default:
			flat = append(flat, a)
		}
	}
	// Merge X a ∧ X b = X(a ∧ b), G a ∧ G b = G(a ∧ b) (And);
	// X a ∨ X b = X(a ∨ b), F a ∨ F b = F(a ∨ b) (Or).
	var nexts, mods []*Formula
	rest := flat[:0:0]
	for _, a := range flat {
		switch {
		case a.Op == OpNext:
			nexts = append(nexts, a.Args[0])
		case op == OpAnd && isG(a):
			mods = append(mods, a.Args[1])
		case op == OpOr && isF(a):
			mods = append(mods, a.Args[1])
		default:
			rest = append(rest, a)
		}
	}
	if len(nexts) > 1 {
		rest = append(rest, Next(junction(op, nexts)))
	} else if len(nexts) == 1 {
		rest = append(rest, Next(nexts[0]))
	}
	if len(mods) > 1 {
		if op == OpAnd {
			rest = append(rest, Always(junction(op, mods)))
		} else {
			rest = append(rest, Eventually(junction(op, mods)))
		}
	} else if len(mods) == 1 {
		if op == OpAnd {
			rest = append(rest, Always(mods[0]))
		} else {
			rest = append(rest, Eventually(mods[0]))
		}
	}
	flat = rest
	sort.Slice(flat, func(i, j int) bool { return flat[i].key < flat[j].key })
	out := flat[:0]
	for i, a := range flat {
		if i > 0 && a.key == flat[i-1].key {
			continue
		}
		if a.Op == zero.Op {
			return zero
		}
		out = append(out, a)
	}
	// Complementary literals: p ∧ ¬p = false, p ∨ ¬p = true.
	lits := map[int]Op{}
	for _, a := range out {
		if a.Op == OpAtom || a.Op == OpNotAtom {
			if o, ok := lits[a.Atom]; ok && o != a.Op {
				return zero
			}
			lits[a.Atom] = a.Op
		}
	}
	switch len(out) {
	case 0:
		return unit
	case 1:
		return out[0]
	}
	return mk(op, out...)
}

func isF(f *Formula) bool { return f.Op == OpUntil && f.Args[0].Op == OpTrue }
func isG(f *Formula) bool { return f.Op == OpRelease && f.Args[0].Op == OpFalse }

// Next returns X a.
func Next(a *Formula) *Formula {
	if a.Op == OpTrue || a.Op == OpFalse {
		return a
	}
	return mk(OpNext, a)
}

// Until returns a U b.
func Until(a, b *Formula) *Formula {
	switch {
	case b.Op == OpTrue || b.Op == OpFalse:
		return b
	case a.Op == OpFalse || a.key == b.key:
		return b
	case isF(b): // a U F c = F c
		return b
	case a.Op == OpTrue && isGF(b): // F G F c = G F c
		return b
	case a.Op == OpTrue && b.Op == OpUntil: // F (c U d) = F d
		return Eventually(b.Args[1])
	case a.Op == OpTrue && b.Op == OpNext: // F X c = X F c
		return Next(Eventually(b.Args[0]))
	}
	return mk(OpUntil, a, b)
}

// Release returns a R b.
func Release(a, b *Formula) *Formula {
	switch {
	case b.Op == OpTrue || b.Op == OpFalse:
		return b
	case a.Op == OpTrue || a.key == b.key:
		return b
	case isG(b): // a R G c = G c
		return b
	case a.Op == OpFalse && isFG(b): // G F G c = F G c
		return b
	case a.Op == OpFalse && b.Op == OpRelease: // G (c R d) = G d
		return Always(b.Args[1])
	case a.Op == OpFalse && b.Op == OpNext: // G X c = X G c
		return Next(Always(b.Args[0]))
	}
	return mk(OpRelease, a, b)
}

func isGF(f *Formula) bool { return isG(f) && isF(f.Args[1]) }
func isFG(f *Formula) bool { return isF(f) && isG(f.Args[1]) }

// Eventually returns F a = true U a.
func Eventually(a *Formula) *Formula { return Until(trueF, a) }

// Always returns G a = false R a.
func Always(a *Formula) *Formula { return Release(falseF, a) }

// Implies returns a -> b = ¬a ∨ b.
func Implies(a, b *Formula) *Formula { return Or(Not(a), b) }

// Equiv returns a <-> b.
func Equiv(a, b *Formula) *Formula { return Or(And(a, b), And(Not(a), Not(b))) }

// WeakUntil returns a W b = (a U b) ∨ G a = b R (a ∨ b).
func WeakUntil(a, b *Formula) *Formula { return Release(b, Or(a, b)) }

// LeadsTo returns a ~> b = G(a -> F b).
func LeadsTo(a, b *Formula) *Formula { return Always(Implies(a, Eventually(b))) }

// HasNext reports whether f contains the next operator X. A formula
// without X is stutter invariant, which partial-order reduction needs.
func (f *Formula) HasNext() bool {
	if f.Op == OpNext {
		return true
	}
	for _, a := range f.Args {
		if a.HasNext() {
			return true
		}
	}
	return false
}

// Atoms returns 1 + the largest atom index in f (0 when f has no atom).
func (f *Formula) Atoms() int {
	n := 0
	if f.Op == OpAtom || f.Op == OpNotAtom {
		n = f.Atom + 1
	}
	for _, a := range f.Args {
		if m := a.Atoms(); m > n {
			n = m
		}
	}
	return n
}

// Size returns the number of nodes of f.
func (f *Formula) Size() int {
	n := 1
	for _, a := range f.Args {
		n += a.Size()
	}
	return n
}

// String prints f with atoms named p0, p1, ...
func (f *Formula) String() string { return f.Format(nil) }

// Format prints f in infix notation with the operators ! && || X F G U R;
// atom i is printed as names[i] when i < len(names), else as p<i>.
func (f *Formula) Format(names []string) string {
	var b strings.Builder
	f.format(&b, names, false)
	return b.String()
}

func (f *Formula) format(b *strings.Builder, names []string, paren bool) {
	atom := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return "p" + itoa(i)
	}
	open := func() {
		if paren {
			b.WriteByte('(')
		}
	}
	closeP := func() {
		if paren {
			b.WriteByte(')')
		}
	}
	switch f.Op {
	case OpTrue:
		b.WriteString("true")
	case OpFalse:
		b.WriteString("false")
	case OpAtom:
		b.WriteString(atom(f.Atom))
	case OpNotAtom:
		b.WriteString("!" + atom(f.Atom))
	case OpAnd, OpOr:
		sep := " && "
		if f.Op == OpOr {
			sep = " || "
		}
		open()
		for i, a := range f.Args {
			if i > 0 {
				b.WriteString(sep)
			}
			a.format(b, names, true)
		}
		closeP()
	case OpNext:
		b.WriteString("X ")
		f.Args[0].format(b, names, true)
	case OpUntil, OpRelease:
		switch {
		case isF(f):
			b.WriteString("F ")
			f.Args[1].format(b, names, true)
		case isG(f):
			b.WriteString("G ")
			f.Args[1].format(b, names, true)
		default:
			open()
			f.Args[0].format(b, names, true)
			if f.Op == OpUntil {
				b.WriteString(" U ")
			} else {
				b.WriteString(" R ")
			}
			f.Args[1].format(b, names, true)
			closeP()
		}
	}
}

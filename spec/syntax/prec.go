package syntax

// Precedence levels of the operators, loosest first (a higher level binds
// tighter). This is the one precedence table: the parser, the printer
// (Format) and the trace printer of package report read it through
// [BinaryPrec] and [PrefixPrec].
const (
	PrecLeadsTo = 1 + iota // leadsto, right associative
	PrecImplies            // implies, right associative
	PrecOr                 // or
	PrecAnd                // and
	PrecUntil              // until weakuntil release since, right associative
	PrecNot                // prefix not always eventually next once historically previously
	PrecCmp                // == != < <= > >= in subset, non-associative
	PrecAdd                // + - union minus | ^
	PrecMul                // * / % intersect & << >> mod
	PrecNeg                // prefix -
)

// BinaryPrec returns the precedence of the binary operator op and whether
// it is right associative; ok is false when op is not a binary operator.
func BinaryPrec(op Token) (prec int, right, ok bool) {
	switch op {
	case LeadsTo:
		return PrecLeadsTo, true, true
	case Implies:
		return PrecImplies, true, true
	case Or:
		return PrecOr, false, true
	case And:
		return PrecAnd, false, true
	case Until, WeakUntil, Release, Since:
		return PrecUntil, true, true
	case Eq, Ne, Lt, Le, Gt, Ge, In, Subset:
		return PrecCmp, false, true
	case Add, Sub, Union, Minus, BitOr, BitXor:
		return PrecAdd, false, true
	case Mul, Div, Mod, Intersect, BitAnd, Shl, Shr, EMod:
		return PrecMul, false, true
	}
	return 0, false, false
}

// PrefixPrec returns the precedence of the prefix operator op; ok is
// false when op is not a prefix operator.
func PrefixPrec(op Token) (prec int, ok bool) {
	switch op {
	case Not, Always, Eventually, Next, Once, Historically, Previously:
		return PrecNot, true
	case Neg:
		return PrecNeg, true
	}
	return 0, false
}

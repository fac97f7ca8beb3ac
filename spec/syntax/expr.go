package syntax

import (
	"math"
	"math/big"
	"strconv"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file parses expressions and types by precedence climbing over the
// participle token stream. They are the bulk of every spec, and a
// production per precedence level costs participle several reflective
// allocations per operand; this parser is about ten times faster and gives
// errors in the words of the grammar. The grammar it accepts is exprEBNF,
// which docs/grammar.ebnf includes.

// exprEBNF is the grammar of gExpr, gTarget and gType, in the EBNF dialect
// that participle prints for the rest of the grammar.
const exprEBNF = `gExpr = Expr .
gTarget = Postfix .
gType = Type .
Expr = Operand (BinaryOp Operand)* .
BinaryOp = "leadsto" | "implies" | "or" | "and" | "until" | "weakuntil" | "release" | "since"
         | "==" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "subset"
         | "+" | "-" | "union" | "minus" | "|" | "^"
         | "*" | "/" | "%" | "intersect" | "&" | "<<" | ">>" | "mod" .
Operand = ("not" | "always" | "eventually" | "next"
          | "once" | "historically" | "previously" | "-")* Postfix .
Postfix = Primary ("[" Expr "]" | "." <ident>)* .
Primary = <ident> ("(" (Expr ("," Expr)*)? ")")?
        | <int> | "true" | "false"
        | "(" Expr ")"
        | "{" (Expr ("," Expr)* ","?)? "}"
        | "[" (Expr ("," Expr)* ","?)? "]"
        | "[" <ident> "in" Type ":" Expr "]"
        | "record" "{" (<ident> ":" Expr ("," <ident> ":" Expr)* ","?)? "}"
        | "if" Expr "then" Expr "else" Expr
        | ("forall" | "exists" | "count" | "sum" | "min" | "max") <ident> "in" Type ":" Expr
        | "ask" <ident> "(" (Expr ("," Expr)*)? ")" .
Type = "bool"
     | "set" "of" Type
     | "symmetric" Bound
     | "[" Type "]" Type
     | "seq" "[" Bound "]" "of" Type
     | "chan" "[" Bound "]" "of" Type
     | "record" "{" (<ident> ":" Type ("," <ident> ":" Type)* ","?)? "}"
     | "{" <ident> ("," <ident>)* ","? "}"
     | Bound ".." Bound
     | <ident> .
Bound = Operand (("+" | "-" | "union" | "minus" | "|" | "^"
        | "*" | "/" | "%" | "intersect" | "&" | "<<" | ">>" | "mod") Operand)* .
`

// gExpr is an expression, parsed by exprParser.
type gExpr struct{ X Expr }

// gTarget is the left-hand side of an assignment: a postfix expression.
type gTarget struct{ X Expr }

// gType is a type, parsed by exprParser.
type gType struct{ T TypeExpr }

// Parse implements participle.Parseable.
func (g *gExpr) Parse(lex *lexer.PeekingLexer) error {
	p := &exprParser{lex: peeking{lex}}
	if !p.startsOperand() {
		return participle.NextMatch
	}
	g.X = p.expr(PrecLeadsTo)
	return p.bounded(g.X)
}

// Parse implements participle.Parseable.
func (g *gTarget) Parse(lex *lexer.PeekingLexer) error {
	p := &exprParser{lex: peeking{lex}}
	if t := p.lex.Peek(); t.Type != tokIdent {
		return participle.NextMatch
	}
	g.X = p.postfix()
	return p.bounded(g.X)
}

// Parse implements participle.Parseable.
func (g *gType) Parse(lex *lexer.PeekingLexer) error {
	p := &exprParser{lex: peeking{lex}}
	if !p.startsType() {
		return participle.NextMatch
	}
	g.T = p.typ()
	return p.bounded(g.T)
}

// bounded returns the parse error, or else an error when the tree x (an
// expression or a type) is taller than [MaxExprHeight].
func (p *exprParser) bounded(x any) error {
	if p.err != nil {
		return p.err
	}
	if at, ok := tooTall(x); ok {
		return participle.Errorf(lexer.Position{Filename: at.Filename, Offset: at.Offset, Line: at.Line, Column: at.Col}, "%s", heightError())
	}
	return nil
}

type opInfo struct {
	tok   Token
	prec  int
	right bool
}

// binaryOp returns the binary operator of t, if it is one. union,
// minus, intersect and subset are not reserved words (the language does
// not list them): they are operators only after an operand; so is mod
// (an extension), which therefore stays a valid name.
func binaryOp(t *lexer.Token) (opInfo, bool) {
	if t.Type == tokIdent {
		switch t.Value {
		case "union", "minus", "intersect", "subset", "mod":
		default:
			return opInfo{}, false
		}
	} else if t.Type != tokKeyword && t.Type != tokPunct {
		return opInfo{}, false
	}
	var tok Token
	switch t.Value {
	case "leadsto":
		tok = LeadsTo
	case "implies":
		tok = Implies
	case "or":
		tok = Or
	case "and":
		tok = And
	case "until":
		tok = Until
	case "weakuntil":
		tok = WeakUntil
	case "release":
		tok = Release
	case "since":
		tok = Since
	case "==":
		tok = Eq
	case "!=":
		tok = Ne
	case "<":
		tok = Lt
	case "<=":
		tok = Le
	case ">":
		tok = Gt
	case ">=":
		tok = Ge
	case "in":
		tok = In
	case "subset":
		tok = Subset
	case "+":
		tok = Add
	case "-":
		tok = Sub
	case "union":
		tok = Union
	case "minus":
		tok = Minus
	case "*":
		tok = Mul
	case "/":
		tok = Div
	case "%":
		tok = Mod
	case "intersect":
		tok = Intersect
	case "&":
		tok = BitAnd
	case "|":
		tok = BitOr
	case "^":
		tok = BitXor
	case "<<":
		tok = Shl
	case ">>":
		tok = Shr
	case "mod":
		tok = EMod
	default:
		return opInfo{}, false
	}
	prec, right, _ := BinaryPrec(tok)
	return opInfo{tok, prec, right}, true
}

// prefixOp returns the prefix operator of t, if it is one.
func prefixOp(t *lexer.Token) (opInfo, bool) {
	if t.Type != tokKeyword && t.Type != tokPunct {
		return opInfo{}, false
	}
	var tok Token
	switch t.Value {
	case "not":
		tok = Not
	case "always":
		tok = Always
	case "eventually":
		tok = Eventually
	case "next":
		tok = Next
	case "once":
		tok = Once
	case "historically":
		tok = Historically
	case "previously":
		tok = Previously
	case "-":
		tok = Neg
	default:
		return opInfo{}, false
	}
	prec, _ := PrefixPrec(tok)
	return opInfo{tok, prec, false}, true
}

// exprParser parses one expression or type. After the first error it
// stops consuming tokens and returns placeholder nodes; err holds the
// error.
type exprParser struct {
	lex   tokenStream
	err   error
	depth int // nesting of operands and types, bounded by maxExprDepth
}

// maxExprDepth bounds the nesting of an expression, so that no input can
// exhaust the stack.
const maxExprDepth = 2000

// MaxIntDigits is the most digits an integer literal may have. Integers
// are exact (a literal may exceed int64), and the bound keeps the cost of
// exact arithmetic on constants small.
const MaxIntDigits = 1000

// enter counts one level of nesting at t; it reports false (and records
// an error) when the expression is nested too deeply.
func (p *exprParser) enter(t *lexer.Token) bool {
	p.depth++
	if p.depth > maxExprDepth {
		p.errorf(t, "expression nested too deeply")
		return false
	}
	return true
}

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }

func (p *exprParser) next() *lexer.Token { return p.lex.Next() }

// is reports whether the next token is the keyword or punctuation s.
func (p *exprParser) is(s string) bool {
	t := p.peek()
	return t.Value == s && (t.Type == tokKeyword || t.Type == tokPunct)
}

func (p *exprParser) errorf(t *lexer.Token, msg string) {
	if p.err == nil {
		p.err = participle.Errorf(t.Pos, "%s", msg+hint(*t))
	}
}

// expect consumes the keyword or punctuation s, or records an error.
func (p *exprParser) expect(s string) lexer.Position {
	t := p.peek()
	if p.err == nil && !p.is(s) {
		p.errorf(t, "expected '"+s+"', found "+describe(*t))
	}
	if p.err != nil {
		return t.Pos
	}
	return p.next().Pos
}

// ident consumes an identifier, or records an error.
func (p *exprParser) ident() Ident {
	t := p.peek()
	if p.err == nil && t.Type != tokIdent {
		p.errorf(t, "expected name, found "+describe(*t))
	}
	if p.err != nil {
		return Ident{Pos: position(t.Pos)}
	}
	p.next()
	return Ident{Pos: position(t.Pos), Name: t.Value}
}

func (p *exprParser) startsOperand() bool {
	t := p.peek()
	switch t.Type {
	case tokIdent, tokInt:
		return true
	case tokKeyword:
		switch t.Value {
		case "true", "false", "record", "if", "forall", "exists", "count", "ask",
			"not", "always", "eventually", "next", "once", "historically", "previously":
			return true
		}
	case tokPunct:
		switch t.Value {
		case "(", "{", "-", "[":
			return true
		}
	}
	return false
}

func (p *exprParser) startsType() bool {
	if p.startsOperand() {
		return true
	}
	t := p.peek()
	switch t.Value {
	case "bool", "set", "symmetric", "[":
		return t.Type == tokKeyword || t.Type == tokPunct
	}
	return false
}

// expr parses binary operators that bind at least as tightly as min.
func (p *exprParser) expr(min int) Expr {
	return p.binary(min, min)
}

// binary parses operators binding at least as tightly as minBin, after an
// operand that may start with prefix operators of level minPre or tighter.
func (p *exprParser) binary(minBin, minPre int) Expr {
	x := p.unary(minPre)
	cmp := false
	for n := 1; p.err == nil; n++ {
		t := p.peek()
		info, ok := binaryOp(t)
		if !ok || info.prec < minBin || info.tok == EMod && !p.modOperator() {
			break
		}
		if n > MaxExprHeight {
			// x is already this tall: stop before reading the rest.
			p.errorf(t, heightError())
			break
		}
		if info.prec == PrecCmp && cmp {
			p.errorf(t, "expected end of comparison, found "+describe(*t)+" (comparisons do not chain)")
			break
		}
		p.next()
		next := info.prec + 1
		if info.right {
			next = info.prec
		}
		if !p.enter(t) {
			break
		}
		y := p.binary(next, next)
		p.depth--
		x = &BinaryExpr{Pos: x.Position(), OpPos: position(t.Pos), Op: info.tok, X: x, Y: y}
		cmp = info.prec == PrecCmp
	}
	return x
}

// modOperator reports whether the name mod at the next token is the
// operator: an operand follows it. Otherwise it is a name that starts the
// next statement (mod := 1, mod[i] := 1), as it was before mod was an
// operator.
func (p *exprParser) modOperator() bool {
	cp := p.lex.mark()
	p.lex.Next()
	ok := p.startsOperand()
	p.lex.reset(cp)
	return ok
}

func (p *exprParser) unary(minPre int) Expr {
	t := p.peek()
	defer func() { p.depth-- }()
	if !p.enter(t) {
		return &badExpr{Pos: position(t.Pos)}
	}
	info, ok := prefixOp(t)
	if !ok || p.err != nil {
		return p.postfix()
	}
	if info.prec < minPre {
		p.errorf(t, "expected operand, found "+describe(*t)+" (parenthesize the "+t.Value+" expression)")
		return &badExpr{Pos: position(t.Pos)}
	}
	p.next()
	var x Expr
	if info.prec == PrecNeg {
		x = p.unary(PrecNeg)
	} else {
		x = p.binary(PrecCmp, PrecNot)
	}
	return &UnaryExpr{Pos: position(t.Pos), Op: info.tok, X: x}
}

func (p *exprParser) postfix() Expr {
	x := p.primary()
	for n := 1; p.err == nil; n++ {
		if n > MaxExprHeight && (p.is("[") || p.is(".")) {
			p.errorf(p.peek(), heightError())
			break
		}
		switch {
		case p.is("["):
			p.next()
			i := p.expr(PrecLeadsTo)
			end := p.expect("]")
			x = &IndexExpr{Pos: x.Position(), X: x, Index: i, End: position(end)}
		case p.is("."):
			p.next()
			x = &SelectorExpr{Pos: x.Position(), X: x, Field: p.ident()}
		default:
			return x
		}
	}
	return x
}

// args parses "(args)" and returns the position of ")".
func (p *exprParser) args() ([]Expr, Position) {
	p.expect("(")
	var args []Expr
	for p.err == nil && !p.is(")") {
		args = append(args, p.expr(PrecLeadsTo))
		if !p.is(",") {
			break
		}
		p.next()
		if p.is(")") {
			t := p.peek()
			p.errorf(t, "expected expression, found ')'")
		}
	}
	return args, position(p.expect(")"))
}

// array parses an array literal or comprehension (extensions); the next
// token is "[". `[x in` starts a comprehension: a literal whose first
// element is a membership test writes it in parentheses.
func (p *exprParser) array() Expr {
	pos := position(p.next().Pos)
	cp := p.lex.mark()
	if p.peek().Type == tokIdent {
		p.next()
		comp := p.is("in")
		p.lex.reset(cp)
		if comp {
			c := &ArrayComp{Pos: pos, Var: p.ident()}
			p.expect("in")
			c.Domain = p.typ()
			p.expect(":")
			c.Body = p.expr(PrecLeadsTo)
			c.End = position(p.expect("]"))
			return c
		}
	}
	a := &ArrayLit{Pos: pos}
	for p.err == nil && !p.is("]") {
		a.Elems = append(a.Elems, p.expr(PrecLeadsTo))
		if !p.is(",") {
			break
		}
		p.next()
	}
	a.End = position(p.expect("]"))
	return a
}

// seqType reports whether the name at the next token starts a sequence
// or channel type (an extension): seq or chan followed by [. Elsewhere
// seq and chan are names.
func (p *exprParser) seqType() bool {
	cp := p.lex.mark()
	defer p.lex.reset(cp)
	p.lex.Next()
	return p.is("[")
}

// aggregate reports whether the name at the next token starts an
// aggregate (an extension): sum, min or max followed by a name and in.
// Elsewhere they are names (max(a, b) calls an fn max).
func (p *exprParser) aggregate() (QuantKind, bool) {
	var k QuantKind
	switch p.peek().Value {
	case "sum":
		k = Sum
	case "min":
		k = Min
	case "max":
		k = Max
	default:
		return 0, false
	}
	cp := p.lex.mark()
	defer p.lex.reset(cp)
	p.lex.Next()
	if p.peek().Type != tokIdent {
		return 0, false
	}
	p.lex.Next()
	return k, p.is("in")
}

func (p *exprParser) primary() Expr {
	t := p.peek()
	pos := position(t.Pos)
	if p.err != nil {
		return &badExpr{Pos: pos}
	}
	switch t.Type {
	case tokIdent:
		if k, ok := p.aggregate(); ok {
			p.next()
			q := &QuantExpr{Pos: pos, Kind: k}
			q.Var = p.ident()
			p.expect("in")
			q.Domain = p.typ()
			p.expect(":")
			q.Body = p.expr(PrecLeadsTo)
			return q
		}
		p.next()
		if p.is("(") {
			c := &CallExpr{Pos: pos, Fn: Ident{Pos: pos, Name: t.Value}}
			c.Args, c.End = p.args()
			return c
		}
		return &IdentExpr{Pos: pos, Name: t.Value}
	case tokInt:
		p.next()
		lit := &IntLit{Pos: pos, Text: t.Value}
		v, err := strconv.ParseInt(t.Value, 10, 64)
		switch {
		case err == nil:
			lit.Value = v
		case len(t.Value) > MaxIntDigits:
			p.errorf(t, "integer literal "+t.Value[:20]+"... has more than "+strconv.Itoa(MaxIntDigits)+" digits")
		default:
			// Integers are exact: a literal past int64 keeps its value.
			if _, ok := new(big.Int).SetString(t.Value, 10); !ok {
				p.errorf(t, "malformed integer literal "+t.Value)
				break
			}
			lit.Huge, lit.Value = true, math.MaxInt64
		}
		return lit
	case tokKeyword:
		switch t.Value {
		case "true", "false":
			p.next()
			return &BoolLit{Pos: pos, Value: t.Value == "true"}
		case "record":
			p.next()
			p.expect("{")
			r := &RecordLit{Pos: pos}
			for p.err == nil && !p.is("}") {
				fpos := position(p.peek().Pos)
				name := p.ident()
				p.expect(":")
				r.Fields = append(r.Fields, &FieldInit{Pos: fpos, Name: name, Value: p.expr(PrecLeadsTo)})
				if !p.is(",") {
					break
				}
				p.next()
			}
			r.End = position(p.expect("}"))
			return r
		case "if":
			p.next()
			c := &CondExpr{Pos: pos, Cond: p.expr(PrecLeadsTo)}
			if p.err == nil {
				if th := p.peek(); th.Type != tokIdent || th.Value != "then" {
					p.errorf(th, "expected 'then', found "+describe(*th))
				} else {
					p.next()
				}
			}
			c.Then = p.expr(PrecLeadsTo)
			p.expect("else")
			c.Else = p.expr(PrecLeadsTo)
			return c
		case "forall", "exists", "count":
			p.next()
			q := &QuantExpr{Pos: pos, Kind: Forall}
			switch t.Value {
			case "exists":
				q.Kind = Exists
			case "count":
				q.Kind = Count
			}
			q.Var = p.ident()
			p.expect("in")
			q.Domain = p.typ()
			p.expect(":")
			q.Body = p.expr(PrecLeadsTo)
			return q
		case "ask":
			p.next()
			a := &AskExpr{Pos: pos, Agent: p.ident()}
			a.Args, a.End = p.args()
			return a
		}
	case tokPunct:
		switch t.Value {
		case "(":
			p.next()
			x := p.expr(PrecLeadsTo)
			return &ParenExpr{Pos: pos, X: x, End: position(p.expect(")"))}
		case "{":
			p.next()
			s := &SetLit{Pos: pos}
			for p.err == nil && !p.is("}") {
				s.Elems = append(s.Elems, p.expr(PrecLeadsTo))
				if !p.is(",") {
					break
				}
				p.next()
			}
			s.End = position(p.expect("}"))
			return s
		case "[":
			return p.array()
		}
	}
	p.errorf(t, "expected expression, found "+describe(*t))
	return &badExpr{Pos: pos}
}

// typ parses a type.
func (p *exprParser) typ() TypeExpr {
	t := p.peek()
	pos := position(t.Pos)
	defer func() { p.depth-- }()
	if !p.enter(t) || p.err != nil {
		return &NamedType{Pos: pos}
	}
	if t.Type == tokKeyword || t.Type == tokPunct {
		switch t.Value {
		case "bool":
			p.next()
			return &BoolType{Pos: pos}
		case "set":
			p.next()
			p.expect("of")
			return &SetType{Pos: pos, Elem: p.typ()}
		case "symmetric":
			p.next()
			return &SymmetricType{Pos: pos, N: p.expr(PrecAdd)}
		case "[":
			p.next()
			a := &ArrayType{Pos: pos, Index: p.typ()}
			p.expect("]")
			a.Elem = p.typ()
			return a
		case "record":
			p.next()
			p.expect("{")
			r := &RecordType{Pos: pos}
			for p.err == nil && !p.is("}") {
				fpos := position(p.peek().Pos)
				name := p.ident()
				p.expect(":")
				r.Fields = append(r.Fields, &Param{Pos: fpos, Name: name, Type: p.typ()})
				if !p.is(",") {
					break
				}
				p.next()
			}
			r.End = position(p.expect("}"))
			return r
		case "{":
			p.next()
			e := &EnumType{Pos: pos}
			for p.err == nil {
				e.Members = append(e.Members, p.ident())
				if !p.is(",") {
					break
				}
				p.next()
				if p.is("}") {
					break
				}
			}
			e.End = position(p.expect("}"))
			return e
		}
	}
	if t.Type == tokIdent && (t.Value == "seq" || t.Value == "chan") && p.seqType() {
		p.next()
		p.expect("[")
		s := &SeqType{Pos: pos, Cap: p.expr(PrecAdd), Chan: t.Value == "chan"}
		p.expect("]")
		p.expect("of")
		s.Elem = p.typ()
		return s
	}
	if !p.startsOperand() {
		p.errorf(t, "expected type, found "+describe(*t))
		return &NamedType{Pos: pos}
	}
	lo := p.expr(PrecAdd)
	if p.err == nil && p.is("..") {
		p.next()
		return &RangeType{Pos: pos, Lo: lo, Hi: p.expr(PrecAdd)}
	}
	if id, ok := lo.(*IdentExpr); ok {
		return &NamedType{Pos: id.Pos, Name: id.Name}
	}
	if p.err == nil {
		n := p.peek()
		p.errorf(n, "expected '..', found "+describe(*n))
	}
	return &NamedType{Pos: pos}
}

// badExpr stands for an expression that failed to parse; it never
// appears in a tree that Parse returns.
type badExpr struct{ Pos Position }

func (*badExpr) exprNode()            {}
func (e *badExpr) Position() Position { return e.Pos }

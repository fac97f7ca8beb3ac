package syntax

import (
	"math"
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"
)

// This file holds the declarations of the quantitative extension: rates
// on agent answers and probability queries (docs/language.md,
// "Probabilities"). Both begin with a contextual word (rate,
// probability) that is a name everywhere else, so a spec that uses
// neither parses as it did before.

// RateDecl is `rate Agent (when Cond)? { Value: Prob ... }`: when the
// agent is asked with arguments for which Cond holds, it answers each
// listed value with the given probability.
type RateDecl struct {
	Pos     Position
	Agent   Ident
	When    Expr // over the agent's parameters; nil: every argument
	Answers []*RateAnswer
	End     Position // the closing brace
}

// RateAnswer is `Value: k/n` (an exact probability) or `Value: k of n`
// (a measured count: k answers Value among n asks).
type RateAnswer struct {
	Pos   Position
	Value Expr
	Num   *IntLit
	Den   *IntLit
	Count bool // written `k of n`
}

// ProbabilityDecl is `probability Name: (min|max)? Formula (within
// Steps)? (bound Op Value)?`, where Formula is `eventually c` or `a
// until b`.
type ProbabilityDecl struct {
	Pos     Position
	Name    Ident
	Opt     string // "min", "max" or "" (both, or the one the bound needs)
	Formula Expr
	Within  *IntLit // nil: unbounded
	Bound   *ProbBound
}

// ProbBound is the bound of a probability query: `bound <= 0.05`.
type ProbBound struct {
	Pos   Position
	Op    Token  // Le, Lt, Ge or Gt
	Value string // as written: "0.05", "1/20" or "1"
}

// CostDecl is `cost Name { Item ... }`: a cost (or reward) that each
// step accumulates, for expected-cost queries.
type CostDecl struct {
	Pos   Position
	Name  Ident
	Items []*CostItem
	End   Position // the closing brace
}

// CostItem is `Action: Value` (each step of the action named costs
// Value) or `when Cond: Value` (each step taken from a state where Cond
// holds costs Value). Value is `k` or `k/n`.
type CostItem struct {
	Pos    Position
	Action *Ident // nil: When is set
	When   Expr
	Num    *IntLit
	Den    *IntLit // nil: an integer
}

// ExpectedDecl is `expected Name: (min|max)? Cost until Cond (bound Op
// Value)?`: the expected cost accumulated until Cond holds.
type ExpectedDecl struct {
	Pos     Position
	Name    Ident
	Opt     string
	Formula Expr // Cost until Cond, as an expression
	Bound   *ProbBound
}

func (*RateDecl) declNode()        {}
func (*ProbabilityDecl) declNode() {}
func (*CostDecl) declNode()        {}
func (*ExpectedDecl) declNode()    {}

func (d *RateDecl) Position() Position        { return d.Pos }
func (d *ProbabilityDecl) Position() Position { return d.Pos }
func (d *CostDecl) Position() Position        { return d.Pos }
func (d *ExpectedDecl) Position() Position    { return d.Pos }

// The participle grammar of the two declarations (see grammar.go); the
// descent parser's version is [descent.rateDecl] and
// [descent.probabilityDecl].

type gRateDecl struct {
	Kw      lexer.Token    `parser:"@'rate'"`
	Agent   lexer.Token    `parser:"@Ident"`
	When    *gExpr         `parser:"( 'when' @@ )? '{' ';'*"`
	Answers []*gRateAnswer `parser:"( @@ ';'* )*"`
	End     lexer.Token    `parser:"@'}'"`
}

type gRateAnswer struct {
	Value *gExpr      `parser:"@@ ':'"`
	Num   lexer.Token `parser:"@Int"`
	Sep   string      `parser:"@( '/' | 'of' )"`
	Den   lexer.Token `parser:"@Int"`
}

type gProbabilityDecl struct {
	Kw      lexer.Token  `parser:"@'probability'"`
	Name    lexer.Token  `parser:"@Ident ':'"`
	Opt     string       `parser:"@( 'min' | 'max' )?"`
	Formula *gExpr       `parser:"@@"`
	Within  *lexer.Token `parser:"( 'within' @Int )?"`
	Bound   *gProbBound  `parser:"@@?"`
}

type gCostDecl struct {
	Kw    lexer.Token  `parser:"@'cost'"`
	Name  lexer.Token  `parser:"@Ident '{' ';'*"`
	Items []*gCostItem `parser:"( @@ ';'* )*"`
	End   lexer.Token  `parser:"@'}'"`
}

type gCostItem struct {
	When   *gCostWhen   `parser:"( @@"`
	Action *lexer.Token `parser:"| @Ident ) ':'"`
	Num    lexer.Token  `parser:"@Int"`
	Den    *lexer.Token `parser:"( '/' @Int )?"`
}

type gCostWhen struct {
	Kw   lexer.Token `parser:"@'when'"`
	Cond *gExpr      `parser:"@@"`
}

type gExpectedDecl struct {
	Kw      lexer.Token `parser:"@'expected'"`
	Name    lexer.Token `parser:"@Ident ':'"`
	Opt     string      `parser:"@( 'min' | 'max' )?"`
	Formula *gExpr      `parser:"@@"`
	Bound   *gProbBound `parser:"@@?"`
}

type gProbBound struct {
	Kw    lexer.Token  `parser:"@'bound'"`
	Op    string       `parser:"@( '<=' | '<' | '>=' | '>' )"`
	Int   lexer.Token  `parser:"@Int"`
	Frac  *lexer.Token `parser:"( '.' @Int"`
	Slash *lexer.Token `parser:"| '/' @Int )?"`
}

// rateDecl parses a rate declaration; the next token is rate.
func (p *descent) rateDecl() *RateDecl {
	kw := *p.lex.Next()
	d := &RateDecl{Pos: position(kw.Pos), Agent: ident(p.name())}
	if p.is("when") {
		p.lex.Next()
		d.When = p.expr()
	}
	p.expect("{")
	p.semicolons()
	n := 0
	for !p.is("}") {
		e := exprParser{lex: p.lex}
		if !e.startsOperand() {
			p.fail()
		}
		a := &RateAnswer{Pos: position(p.peek().Pos), Value: p.expr()}
		p.expect(":")
		a.Num = intLit(p.intTok())
		switch p.peek().Value {
		case "/":
		case "of":
			a.Count = true
		default:
			p.fail()
		}
		p.lex.Next()
		a.Den = intLit(p.intTok())
		d.Answers = append(d.Answers, a)
		p.count(&n)
		p.semicolons()
	}
	d.End = position(p.expect("}").Pos)
	return d
}

// probabilityDecl parses a probability query; the next token is
// probability.
func (p *descent) probabilityDecl() *ProbabilityDecl {
	kw := *p.lex.Next()
	d := &ProbabilityDecl{Pos: position(kw.Pos), Name: ident(p.name())}
	p.expect(":")
	if p.is("min") || p.is("max") {
		d.Opt = p.lex.Next().Value
	}
	d.Formula = p.expr()
	if p.is("within") {
		p.lex.Next()
		d.Within = intLit(p.intTok())
	}
	d.Bound = p.probBound()
	return d
}

// costDecl parses a cost declaration; the next token is cost.
func (p *descent) costDecl() *CostDecl {
	kw := *p.lex.Next()
	d := &CostDecl{Pos: position(kw.Pos), Name: ident(p.name())}
	p.expect("{")
	p.semicolons()
	n := 0
	for !p.is("}") {
		it := &CostItem{Pos: position(p.peek().Pos)}
		if p.is("when") {
			p.lex.Next()
			it.When = p.expr()
		} else {
			a := ident(p.name())
			it.Action = &a
		}
		p.expect(":")
		it.Num = intLit(p.intTok())
		if p.is("/") {
			p.lex.Next()
			it.Den = intLit(p.intTok())
		}
		d.Items = append(d.Items, it)
		p.count(&n)
		p.semicolons()
	}
	d.End = position(p.expect("}").Pos)
	return d
}

// expectedDecl parses an expected-cost query; the next token is
// expected.
func (p *descent) expectedDecl() *ExpectedDecl {
	kw := *p.lex.Next()
	d := &ExpectedDecl{Pos: position(kw.Pos), Name: ident(p.name())}
	p.expect(":")
	if p.is("min") || p.is("max") {
		d.Opt = p.lex.Next().Value
	}
	d.Formula = p.expr()
	d.Bound = p.probBound()
	return d
}

// probBound parses the bound of a query, if there is one.
func (p *descent) probBound() *ProbBound {
	if !p.is("bound") {
		return nil
	}
	b := &ProbBound{Pos: position(p.lex.Next().Pos)}
	op := p.peek().Value
	var ok bool
	if b.Op, ok = boundOps[op]; !ok {
		p.fail()
	}
	p.lex.Next()
	b.Value = p.intTok().Value
	switch {
	case p.is("."):
		p.lex.Next()
		b.Value += "." + p.intTok().Value
	case p.is("/"):
		p.lex.Next()
		b.Value += "/" + p.intTok().Value
	}
	return b
}

// intTok takes an integer literal, or gives up.
func (p *descent) intTok() lexer.Token {
	if p.peek().Type != tokInt {
		p.fail()
	}
	return *p.lex.Next()
}

var boundOps = map[string]Token{"<=": Le, "<": Lt, ">=": Ge, ">": Gt}

// intLit makes the literal of an integer token (its value saturated, and
// Huge set, past int64, as the expression parser does).
func intLit(t lexer.Token) *IntLit {
	lit := &IntLit{Pos: position(t.Pos), Text: t.Value}
	v, err := strconv.ParseInt(t.Value, 10, 64)
	if err != nil {
		lit.Huge, lit.Value = true, math.MaxInt64
	} else {
		lit.Value = v
	}
	return lit
}

func (l *lowerer) rateDecl(g *gRateDecl) *RateDecl {
	d := &RateDecl{Pos: position(g.Kw.Pos), Agent: ident(g.Agent), End: position(g.End.Pos)}
	if g.When != nil {
		d.When = l.expr(g.When)
	}
	for _, a := range g.Answers {
		v := l.expr(a.Value)
		d.Answers = append(d.Answers, &RateAnswer{Pos: v.Position(), Value: v, Num: intLit(a.Num), Den: intLit(a.Den), Count: a.Sep == "of"})
	}
	return d
}

func (l *lowerer) probabilityDecl(g *gProbabilityDecl) *ProbabilityDecl {
	d := &ProbabilityDecl{Pos: position(g.Kw.Pos), Name: ident(g.Name), Opt: g.Opt, Formula: l.expr(g.Formula)}
	if g.Within != nil {
		d.Within = intLit(*g.Within)
	}
	d.Bound = probBound(g.Bound)
	return d
}

func probBound(b *gProbBound) *ProbBound {
	if b == nil {
		return nil
	}
	pb := &ProbBound{Pos: position(b.Kw.Pos), Op: boundOps[b.Op], Value: b.Int.Value}
	if b.Frac != nil {
		pb.Value += "." + b.Frac.Value
	} else if b.Slash != nil {
		pb.Value += "/" + b.Slash.Value
	}
	return pb
}

func (l *lowerer) costDecl(g *gCostDecl) *CostDecl {
	d := &CostDecl{Pos: position(g.Kw.Pos), Name: ident(g.Name), End: position(g.End.Pos)}
	for _, it := range g.Items {
		c := &CostItem{Num: intLit(it.Num)}
		if it.When != nil {
			c.Pos, c.When = position(it.When.Kw.Pos), l.expr(it.When.Cond)
		} else {
			a := ident(*it.Action)
			c.Pos, c.Action = a.Pos, &a
		}
		if it.Den != nil {
			c.Den = intLit(*it.Den)
		}
		d.Items = append(d.Items, c)
	}
	return d
}

func (l *lowerer) expectedDecl(g *gExpectedDecl) *ExpectedDecl {
	return &ExpectedDecl{Pos: position(g.Kw.Pos), Name: ident(g.Name), Opt: g.Opt, Formula: l.expr(g.Formula), Bound: probBound(g.Bound)}
}

// quantDecl prints a rate declaration or a probability query.
func (p *printer) quantDecl(d Decl) {
	switch d := d.(type) {
	case *RateDecl:
		p.write("rate ")
		p.ident(d.Agent)
		if d.When != nil {
			p.write(" when ")
			p.expr(d.When)
		}
		if len(d.Answers) == 0 && !p.hasComments(d.End) {
			p.write(" {}")
			p.mark(d.End)
			return
		}
		p.write(" ")
		p.open()
		for _, a := range d.Answers {
			p.item(a.Pos)
			p.expr(a.Value)
			p.write(": " + a.Num.Text)
			if a.Count {
				p.write(" of ")
			} else {
				p.write("/")
			}
			p.write(a.Den.Text)
		}
		p.close(d.End)
	case *ProbabilityDecl:
		p.write("probability ")
		p.ident(d.Name)
		p.write(": ")
		if d.Opt != "" {
			p.write(d.Opt + " ")
		}
		p.expr(d.Formula)
		if d.Within != nil {
			p.write(" within " + d.Within.Text)
		}
		if d.Bound != nil {
			p.write(" bound " + d.Bound.Op.String() + " " + d.Bound.Value)
		}
	case *CostDecl:
		p.write("cost ")
		p.ident(d.Name)
		if len(d.Items) == 0 && !p.hasComments(d.End) {
			p.write(" {}")
			p.mark(d.End)
			return
		}
		p.write(" ")
		p.open()
		for _, it := range d.Items {
			p.item(it.Pos)
			if it.Action != nil {
				p.ident(*it.Action)
			} else {
				p.write("when ")
				p.expr(it.When)
			}
			p.write(": " + it.Num.Text)
			if it.Den != nil {
				p.write("/" + it.Den.Text)
			}
		}
		p.close(d.End)
	case *ExpectedDecl:
		p.write("expected ")
		p.ident(d.Name)
		p.write(": ")
		if d.Opt != "" {
			p.write(d.Opt + " ")
		}
		p.expr(d.Formula)
		if d.Bound != nil {
			p.write(" bound " + d.Bound.Op.String() + " " + d.Bound.Value)
		}
	}
}

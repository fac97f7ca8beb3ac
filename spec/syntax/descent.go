package syntax

import (
	"strconv"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// This file parses declarations, process members, blocks and statements
// by recursive descent, straight to the AST, driving exprParser for
// expressions, assignment targets and types. It accepts exactly the
// language of the participle grammar (grammar.go) and builds the tree
// that grammar and the lowerer (parse.go) build, but it has no error
// messages of its own: at the first token it cannot take it gives up,
// and Parse parses the input again with the participle grammar, the
// reference, which reports the error. Building that grammar by
// reflection costs more than parsing a small spec, so a valid file never
// pays for it.
//
// The participle grammar runs with no lookahead (UseLookahead(0)): an
// alternative or an optional group that fails after taking a token is an
// error, not a reason to try the next one, and every construct begins
// with a token that names it. So each decision here is made on the next
// token alone, as participle makes it.

// descent is the recursive-descent parser of one token stream.
type descent struct {
	lex tokenStream
	at  lexer.Token // the token at which the parser gave up
}

// giveUp is the panic value with which the parser unwinds at a token it
// cannot take.
type giveUp struct{}

// parseDescent parses the tokens of lex into a file, or reports false at
// the first syntax error and at every other input that the participle
// path would not accept as it stands (an assert message that is not a
// valid string literal, too many repetitions). at is then the token at
// which it gave up. A panic inside, a bug, also reports false, so that
// the participle path decides.
func parseDescent(lex tokenStream, filename string) (f *File, at lexer.Token, ok bool) {
	p := &descent{lex: lex}
	defer func() {
		if r := recover(); r != nil {
			if _, bail := r.(giveUp); !bail {
				p.at = *p.lex.Peek()
			}
			f, at, ok = nil, p.at, false
		}
	}()
	return p.file(filename), lexer.Token{}, true
}

// fail gives up at the next token.
func (p *descent) fail() {
	p.at = *p.lex.Peek()
	panic(giveUp{})
}

func (p *descent) peek() *lexer.Token { return p.lex.Peek() }

// is reports whether the next token is s. Like a literal of the
// participle grammar, it compares the token's text alone: no token of
// another kind can spell a keyword or a punctuation mark, and the
// contextual words (assume) are names.
func (p *descent) is(s string) bool { return p.lex.Peek().Value == s }

// expect takes the token s, or gives up.
func (p *descent) expect(s string) lexer.Token {
	if !p.is(s) {
		p.fail()
	}
	return *p.lex.Next()
}

// name takes an identifier, or gives up.
func (p *descent) name() lexer.Token {
	if p.peek().Type != tokIdent {
		p.fail()
	}
	return *p.lex.Next()
}

// count counts one more repetition of a group of the grammar; participle
// refuses a group repeated participle.MaxIterations times.
func (p *descent) count(n *int) {
	*n++
	if *n >= participle.MaxIterations {
		p.fail()
	}
}

// semicolons takes the `';'*` of the grammar.
func (p *descent) semicolons() {
	n := 0
	for p.is(";") {
		p.lex.Next()
		p.count(&n)
	}
}

// expr parses a gExpr, which must be there.
func (p *descent) expr() Expr {
	e := exprParser{lex: p.lex}
	if !e.startsOperand() {
		p.fail()
	}
	x := e.expr(PrecLeadsTo)
	if e.bounded(x) != nil {
		p.fail()
	}
	return x
}

// target parses a gTarget, which must be there.
func (p *descent) target() Expr {
	if p.peek().Type != tokIdent {
		p.fail()
	}
	e := exprParser{lex: p.lex}
	x := e.postfix()
	if e.bounded(x) != nil {
		p.fail()
	}
	return x
}

// typ parses a gType, which must be there.
func (p *descent) typ() TypeExpr {
	e := exprParser{lex: p.lex}
	if !e.startsType() {
		p.fail()
	}
	t := e.typ()
	if e.bounded(t) != nil {
		p.fail()
	}
	return t
}

func (p *descent) file(filename string) *File {
	p.expect("spec")
	name := p.name()
	f := &File{Filename: filename, Name: name.Value, NamePos: position(name.Pos)}
	n := 0
	for {
		d := p.decl()
		if d == nil {
			break
		}
		f.Decls = append(f.Decls, d)
		p.count(&n)
		p.semicolons()
	}
	if p.peek().Type != tokEOF {
		p.fail()
	}
	return f
}

// param parses `name: Type`.
func (p *descent) param() *Param {
	name := p.name()
	p.expect(":")
	return &Param{Pos: position(name.Pos), Name: ident(name), Type: p.typ()}
}

// params parses `( param ( ',' param )* )? ')'`.
func (p *descent) params() []*Param {
	var ps []*Param
	if p.peek().Type == tokIdent {
		ps = append(ps, p.param())
		n := 0
		for p.is(",") {
			p.lex.Next()
			ps = append(ps, p.param())
			p.count(&n)
		}
	}
	p.expect(")")
	return ps
}

// decl parses a declaration, or returns nil, taking nothing, when the
// next token begins none.
func (p *descent) decl() Decl {
	switch p.peek().Value {
	case "const":
		kw := *p.lex.Next()
		name := p.name()
		p.expect("=")
		return &ConstDecl{Pos: position(kw.Pos), Name: ident(name), Value: p.expr()}
	case "type":
		kw := *p.lex.Next()
		name := p.name()
		p.expect("=")
		return &TypeDecl{Pos: position(kw.Pos), Name: ident(name), Type: p.typ()}
	case "var":
		return p.varDecl()
	case "fn":
		kw := *p.lex.Next()
		d := &FnDecl{Pos: position(kw.Pos), Name: ident(p.name())}
		p.expect("(")
		d.Params = p.params()
		p.expect(":")
		d.Result = p.typ()
		p.expect("=")
		d.Body = p.expr()
		return d
	case "agent":
		kw := *p.lex.Next()
		d := &AgentDecl{Pos: position(kw.Pos), Name: ident(p.name())}
		d.ParamsPos = position(p.expect("(").Pos)
		d.Params = p.params()
		p.expect(":")
		d.Result = p.typ()
		if p.is("assume") {
			p.lex.Next()
			d.Assume = p.expr()
		}
		return d
	case "process":
		return p.process()
	case "action":
		return p.action()
	case "init":
		kw := *p.lex.Next()
		return &InitDecl{Pos: position(kw.Pos), Body: p.block()}
	case "invariant":
		kw := *p.lex.Next()
		name := p.name()
		p.expect(":")
		return &InvariantDecl{Pos: position(kw.Pos), Name: ident(name), Expr: p.expr()}
	case "property":
		kw := *p.lex.Next()
		name := p.name()
		p.expect(":")
		return &PropertyDecl{Pos: position(kw.Pos), Name: ident(name), Formula: p.expr()}
	case "fairness":
		kw := *p.lex.Next()
		d := &FairnessDecl{Pos: position(kw.Pos)}
		switch p.peek().Value {
		case "weak":
		case "strong":
			d.Strong = true
		default:
			p.fail()
		}
		p.lex.Next()
		d.Process = ident(p.name())
		if p.is(".") {
			p.lex.Next()
			a := ident(p.actionName())
			d.Action = &a
		}
		return d
	case "terminal":
		kw := *p.lex.Next()
		return &TerminalDecl{Pos: position(kw.Pos), Expr: p.expr()}
	case "rate":
		return p.rateDecl()
	case "probability":
		return p.probabilityDecl()
	case "cost":
		return p.costDecl()
	case "expected":
		return p.expectedDecl()
	}
	return nil
}

// varDecl parses `var name: Type ( '=' Expr )?`; the next token is var.
func (p *descent) varDecl() *VarDecl {
	kw := *p.lex.Next()
	name := p.name()
	p.expect(":")
	v := &VarDecl{Pos: position(kw.Pos), Name: ident(name), Type: p.typ()}
	if p.is("=") {
		p.lex.Next()
		v.Init = p.expr()
	}
	return v
}

// actionName takes the name of an action: an identifier or a keyword.
func (p *descent) actionName() lexer.Token {
	if t := p.peek().Type; t != tokIdent && t != tokKeyword {
		p.fail()
	}
	return *p.lex.Next()
}

// action parses an action; the next token is action.
func (p *descent) action() *ActionDecl {
	kw := *p.lex.Next()
	a := &ActionDecl{Pos: position(kw.Pos), Name: ident(p.actionName())}
	if p.is("when") {
		p.lex.Next()
		a.Guard = p.expr()
	}
	a.Body = p.block()
	return a
}

// process parses a process; the next token is process.
func (p *descent) process() *ProcessDecl {
	kw := *p.lex.Next()
	d := &ProcessDecl{Pos: position(kw.Pos), Name: ident(p.name())}
	if p.is("[") {
		p.lex.Next()
		d.Index = p.param()
		p.expect("]")
	}
	p.expect("{")
	p.semicolons()
	n := 0
	for {
		switch p.peek().Value {
		case "var":
			v := p.varDecl()
			d.Vars = append(d.Vars, v)
			d.Members = append(d.Members, v)
		case "action":
			a := p.action()
			d.Actions = append(d.Actions, a)
			d.Members = append(d.Members, a)
		default:
			d.End = position(p.expect("}").Pos)
			return d
		}
		p.count(&n)
		p.semicolons()
	}
}

// block parses `'{' ';'* ( Stmt ';'* )* '}'`.
func (p *descent) block() *Block {
	b := &Block{Pos: position(p.expect("{").Pos)}
	p.semicolons()
	n := 0
	for {
		s := p.stmt()
		if s == nil {
			break
		}
		b.Stmts = append(b.Stmts, s)
		p.count(&n)
		p.semicolons()
	}
	b.End = position(p.expect("}").Pos)
	return b
}

// stmt parses a statement, or returns nil, taking nothing, when the next
// token begins none.
func (p *descent) stmt() Stmt {
	t := p.peek()
	if t.Type == tokIdent && t.Value == "for" && p.forStmt() {
		kw := *p.lex.Next()
		name := p.name()
		p.expect("in")
		s := &ForStmt{Pos: position(kw.Pos), Var: ident(name), Domain: p.typ()}
		s.Body = p.block()
		return s
	}
	if t.Type == tokIdent {
		x := p.target()
		op := Assign
		switch {
		case p.is("!"):
			op = Send
			p.lex.Next()
		case p.is("?"):
			op = Recv
			p.lex.Next()
		default:
			p.expect(":=")
		}
		return &AssignStmt{Pos: x.Position(), Target: x, Value: p.expr(), Op: op}
	}
	switch t.Value {
	case "let":
		kw := *p.lex.Next()
		name := p.name()
		p.expect("=")
		return &LetStmt{Pos: position(kw.Pos), Name: ident(name), Value: p.expr()}
	case "if":
		return p.ifStmt()
	case "choose":
		kw := *p.lex.Next()
		name := p.name()
		p.expect("in")
		s := &ChooseStmt{Pos: position(kw.Pos), Var: ident(name), Domain: p.typ()}
		if p.is("where") {
			p.lex.Next()
			s.Where = p.expr()
		}
		s.Body = p.block()
		return s
	case "match":
		return p.match()
	case "assert":
		kw := *p.lex.Next()
		a := &AssertStmt{Pos: position(kw.Pos), Cond: p.expr()}
		if m := p.peek(); m.Type == tokString {
			msg, err := strconv.Unquote(m.Value)
			if err != nil {
				// The participle path reports it.
				p.fail()
			}
			a.Msg = msg
			p.lex.Next()
		}
		return a
	case "skip":
		return &SkipStmt{Pos: position(p.lex.Next().Pos)}
	case "{":
		return p.block()
	}
	return nil
}

// forStmt reports whether the statement at the name for is a for
// statement: a name follows it (for := 1 assigns to a variable for).
func (p *descent) forStmt() bool {
	cp := p.lex.mark()
	p.lex.Next()
	ok := p.peek().Type == tokIdent
	p.lex.reset(cp)
	return ok
}

// ifStmt parses an if statement; the next token is if.
func (p *descent) ifStmt() *IfStmt {
	kw := *p.lex.Next()
	s := &IfStmt{Pos: position(kw.Pos), Cond: p.expr()}
	s.Then = p.block()
	if p.is("else") {
		p.lex.Next()
		switch p.peek().Value {
		case "if":
			s.Else = p.ifStmt()
		case "{":
			s.Else = p.block()
		default:
			p.fail()
		}
	}
	return s
}

// match parses a match statement; the next token is match.
func (p *descent) match() *MatchStmt {
	kw := *p.lex.Next()
	s := &MatchStmt{Pos: position(kw.Pos), X: p.expr()}
	p.expect("{")
	p.semicolons()
	n := 0
	for {
		c := &MatchCase{}
		e := exprParser{lex: p.lex}
		switch {
		case p.is("else"):
			c.Pos = position(p.lex.Next().Pos)
		case e.startsOperand():
			c.Values = append(c.Values, p.expr())
			m := 0
			for p.is(",") {
				p.lex.Next()
				c.Values = append(c.Values, p.expr())
				p.count(&m)
			}
			c.Pos = c.Values[0].Position()
		default:
			s.End = position(p.expect("}").Pos)
			return s
		}
		p.expect("=>")
		if c.Body = p.stmt(); c.Body == nil {
			p.fail()
		}
		s.Cases = append(s.Cases, c)
		p.count(&n)
		p.semicolons()
	}
}

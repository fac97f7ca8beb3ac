package syntax

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// grammar is the participle parser, built on first use, which is the
// first input with a syntax error (or grammarEBNF): a valid file is
// parsed by descent.go. It is immutable afterwards and safe for
// concurrent use.
var grammar = sync.OnceValue(newParser)

// maxNesting bounds the nesting of brackets and else-if chains, which
// the participle grammar parses recursively, so that no input can exhaust
// the stack or take quadratic time.
const maxNesting = 200

// Parse parses the source of a .wrap file. The error, if any, is an
// [ErrorList] whose entries read "file:line:col: msg". Parse never panics.
// It is safe for concurrent use.
func Parse(filename string, src []byte) (f *File, err error) {
	return parse(filename, src, true)
}

// parse is Parse; with stopEarly false the scanner reads the whole of src
// (see scanTokens).
func parse(filename string, src []byte, stopEarly bool) (f *File, err error) {
	return parseWith(filename, src, stopEarly, descentFirst)
}

// parseMode says which of the two parsers of declarations and statements
// parseWith runs.
type parseMode uint8

const (
	// descentFirst runs the recursive-descent parser (descent.go) and,
	// when it gives up, the participle grammar, which reports the error:
	// what Parse does.
	descentFirst parseMode = iota
	// grammarOnly runs the participle grammar alone, the reference the
	// tests compare the other with.
	grammarOnly
	// descentOnly runs the recursive-descent parser alone; when it gives
	// up the error says where, without participle's message. For tests.
	descentOnly
)

// parseWith is parse with the parsers that mode selects.
func parseWith(filename string, src []byte, stopEarly bool, mode parseMode) (f *File, err error) {
	toks, comments, serr := scanTokens(filename, src, stopEarly)
	if serr != nil {
		var list ErrorList
		if se, ok := serr.(*scanError); ok {
			list.Add(position(se.pos), se.msg)
		} else {
			list.Add(Position{Filename: filename}, serr.Error())
		}
		return nil, list.Err()
	}
	if t := *toks.at(0); t.Type != tokKeyword || t.Value != "spec" {
		var list ErrorList
		list.Add(position(t.Pos), "expected 'spec', found "+describe(t))
		return nil, list.Err()
	}
	if t, ok := tooDeep(toks); ok {
		var list ErrorList
		list.Add(position(t.Pos), "nested too deeply")
		return nil, list.Err()
	}
	if mode != grammarOnly {
		f, at, ok := parseDescent(&cursor{toks: toks}, filename)
		switch {
		case ok:
			addComments(f, comments)
			return f, nil
		case mode == descentOnly:
			var list ErrorList
			list.Add(position(at.Pos), "recursive-descent parser gave up at "+describe(at))
			return nil, list.Err()
		}
	}
	defer func() {
		// Last resort: participle's own invariants. Inputs that trigger
		// this are bugs to fix in the grammar.
		if r := recover(); r != nil {
			var list ErrorList
			list.Add(Position{Filename: filename, Line: 1, Col: 1}, fmt.Sprintf("internal parser error: %v", r))
			f, err = nil, list.Err()
		}
	}()
	peek, lerr := lexer.Upgrade(&sliceLexer{cursor{toks: toks}})
	if lerr != nil {
		var list ErrorList
		list.Add(Position{Filename: filename}, lerr.Error())
		return nil, list.Err()
	}
	g, perr := grammar().ParseFromLexer(peek)
	if perr != nil {
		var list ErrorList
		list.Add(syntaxError(perr, filename))
		return nil, list.Err()
	}
	l := &lowerer{}
	f = l.file(g, filename)
	addComments(f, comments)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// addComments adds the scanned comments to f.
func addComments(f *File, comments []lexer.Token) {
	for _, c := range comments {
		f.Comments = append(f.Comments, &Comment{Pos: position(c.Pos), Text: lineFeeds(c.Value)})
	}
}

// lineFeeds rewrites the line ends of s ("\r\n" and a lone "\r") as
// "\n", so that a comment prints with the line ends of [Format].
func lineFeeds(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// tooDeep reports the first token at which the nesting of brackets and
// else-if chains, which the participle grammar parses recursively, exceeds
// maxNesting. (exprParser bounds its own recursion.)
func tooDeep(toks *tokenList) (lexer.Token, bool) {
	depth := 0
	chains := []int{0} // length of the else-if chain open at each depth
	extra := 0         // sum of chains
	last := toks.len() - 1
	for i := range toks.len() {
		t := toks.at(i)
		if t.Type != tokPunct && t.Type != tokKeyword {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			depth++
			if depth == len(chains) {
				chains = append(chains, 0)
			}
			chains[depth] = 0
		case ")", "]", "}":
			extra -= chains[max(depth, 0)]
			chains[max(depth, 0)] = 0
			depth = max(depth-1, 0)
			if next := toks.at(min(i+1, last)); next.Value != "else" || next.Type != tokKeyword {
				extra -= chains[depth]
				chains[depth] = 0
			}
		case "else":
			if next := toks.at(min(i+1, last)); next.Value == "if" && next.Type == tokKeyword {
				chains[depth]++
				extra++
			}
		}
		if depth+extra > maxNesting {
			return *t, true
		}
	}
	return lexer.Token{}, false
}

func position(p lexer.Position) Position {
	return Position{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}

// syntaxError converts a participle error to a position and a Go-style
// message "expected X, found Y".
func syntaxError(err error, filename string) (Position, string) {
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		return position(ute.Unexpected.Pos), "expected " + expectation(ute) + ", found " + describe(ute.Unexpected) + hint(ute.Unexpected)
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		return position(perr.Position()), perr.Message()
	}
	return Position{Filename: filename}, err.Error()
}

// describe names a token the way go/parser does: literals bare, other
// tokens quoted.
func describe(t lexer.Token) string {
	switch t.Type {
	case tokEOF:
		return "EOF"
	case tokIdent, tokInt, tokString:
		return t.Value
	}
	return "'" + t.Value + "'"
}

// hint adds advice for a token that is a common slip: `=` where the
// language wants `==` or `:=`.
func hint(t lexer.Token) string {
	if t.Value == "=" && t.Type != tokString {
		return " (use == to compare, := to assign)"
	}
	return ""
}

// expectation turns participle's expected grammar fragment into words.
func expectation(e *participle.UnexpectedTokenError) string {
	msg := e.Message()
	i := strings.Index(msg, " (expected ")
	if i < 0 {
		return "declaration"
	}
	return humanize(strings.TrimSuffix(msg[i+len(" (expected "):], ")"))
}

// nodeNames maps grammar productions to words for error messages.
var nodeNames = map[string]string{
	"GDecl": "declaration", "GIdent": "name", "gType": "type", "gExpr": "expression",
	"gTarget": "statement", "GStmt": "statement", "GBlock": "'{'", "GParam": "parameter",
	"GMatchCase": "match case", "GProcessMember": "'var' or 'action'",
	"GActionName": "action name", "<ident>": "name", "<int>": "integer", "<string>": "string",
	"<keyword>": "keyword",
}

// humanize rewrites the first element of a grammar fragment such as
// `GIdent ":" gType` or `("weak" | "strong") GIdent` in words.
func humanize(x string) string {
	first := firstTerm(strings.TrimSpace(x))
	first = strings.TrimRight(first, "?*+")
	if strings.HasPrefix(first, "(") && strings.HasSuffix(first, ")") {
		var words []string
		for _, alt := range splitTop(first[1:len(first)-1], '|') {
			words = append(words, humanize(alt))
		}
		return strings.Join(words, " or ")
	}
	if n, ok := nodeNames[first]; ok {
		return n
	}
	if len(first) >= 2 && first[0] == '"' && first[len(first)-1] == '"' {
		return "'" + first[1:len(first)-1] + "'"
	}
	return first
}

// firstTerm returns the first space-separated element of an EBNF
// fragment, keeping parenthesized groups and quoted literals whole.
func firstTerm(x string) string {
	depth, quoted := 0, false
	for i := 0; i < len(x); i++ {
		switch c := x[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ' ' && depth == 0:
			return x[:i]
		}
	}
	return x
}

// splitTop splits x at the separator sep outside parentheses and quotes.
func splitTop(x string, sep byte) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(x); i++ {
		switch c := x[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, x[start:i])
			start = i + 1
		}
	}
	return append(parts, x[start:])
}

// lowerer converts the grammar structs to the AST and collects the errors
// that the grammar cannot express.
type lowerer struct {
	errs ErrorList
}

func (l *lowerer) errorf(p lexer.Position, format string, args ...any) {
	l.errs.Add(position(p), fmt.Sprintf(format, args...))
}

func (l *lowerer) file(g *gFile, filename string) *File {
	f := &File{Filename: filename, Name: g.Name.Value, NamePos: position(g.Name.Pos)}
	for _, d := range g.Decls {
		f.Decls = append(f.Decls, l.decl(d))
	}
	return f
}

// ident converts a captured name token.
func ident(t lexer.Token) Ident {
	return Ident{Pos: position(t.Pos), Name: t.Value}
}

func (l *lowerer) params(gs []*gParam) []*Param {
	var ps []*Param
	for _, g := range gs {
		ps = append(ps, l.param(g))
	}
	return ps
}

func (l *lowerer) param(g *gParam) *Param {
	return &Param{Pos: position(g.Name.Pos), Name: ident(g.Name), Type: l.typ(g.Type)}
}

func (l *lowerer) decl(g *gDecl) Decl {
	switch {
	case g.Const != nil:
		d := g.Const
		return &ConstDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), Value: l.expr(d.Value)}
	case g.Type != nil:
		d := g.Type
		return &TypeDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), Type: l.typ(d.Type)}
	case g.Var != nil:
		return l.varDecl(g.Var)
	case g.Fn != nil:
		d := g.Fn
		return &FnDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), Params: l.params(d.Params),
			Result: l.typ(d.Result), Body: l.expr(d.Body)}
	case g.Agent != nil:
		d := g.Agent
		a := &AgentDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), ParamsPos: position(d.Lparen.Pos),
			Params: l.params(d.Params), Result: l.typ(d.Result)}
		if d.Assume != nil {
			a.Assume = l.expr(d.Assume)
		}
		return a
	case g.Process != nil:
		d := g.Process
		p := &ProcessDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), End: position(d.End.Pos)}
		if d.Index != nil {
			p.Index = l.param(d.Index)
		}
		for _, m := range d.Members {
			if m.Var != nil {
				v := l.varDecl(m.Var)
				p.Vars = append(p.Vars, v)
				p.Members = append(p.Members, v)
			} else {
				a := l.action(m.Action)
				p.Actions = append(p.Actions, a)
				p.Members = append(p.Members, a)
			}
		}
		return p
	case g.Action != nil:
		return l.action(g.Action)
	case g.Init != nil:
		return &InitDecl{Pos: position(g.Init.Kw.Pos), Body: l.block(g.Init.Body)}
	case g.Invariant != nil:
		d := g.Invariant
		return &InvariantDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), Expr: l.expr(d.Expr)}
	case g.Property != nil:
		d := g.Property
		return &PropertyDecl{Pos: position(d.Kw.Pos), Name: ident(d.Name), Formula: l.expr(d.Formula)}
	case g.Fairness != nil:
		d := g.Fairness
		fd := &FairnessDecl{Pos: position(d.Kw.Pos), Strong: d.Kind == "strong", Process: ident(d.Process)}
		if d.Action != nil {
			a := ident(*d.Action)
			fd.Action = &a
		}
		return fd
	case g.Rate != nil:
		return l.rateDecl(g.Rate)
	case g.Probability != nil:
		return l.probabilityDecl(g.Probability)
	case g.Cost != nil:
		return l.costDecl(g.Cost)
	case g.Expected != nil:
		return l.expectedDecl(g.Expected)
	default:
		d := g.Terminal
		return &TerminalDecl{Pos: position(d.Kw.Pos), Expr: l.expr(d.Expr)}
	}
}

func (l *lowerer) varDecl(g *gVarDecl) *VarDecl {
	v := &VarDecl{Pos: position(g.Kw.Pos), Name: ident(g.Name), Type: l.typ(g.Type)}
	if g.Init != nil {
		v.Init = l.expr(g.Init)
	}
	return v
}

func (l *lowerer) action(g *gActionDecl) *ActionDecl {
	a := &ActionDecl{Pos: position(g.Kw.Pos), Name: ident(g.Name), Body: l.block(g.Body)}
	if g.Guard != nil {
		a.Guard = l.expr(g.Guard)
	}
	return a
}

// ---------------------------------------------------------------------------
// Types and expressions

func (l *lowerer) typ(g *gType) TypeExpr { return g.T }

func (l *lowerer) expr(g *gExpr) Expr { return g.X }

// ---------------------------------------------------------------------------
// Statements

func (l *lowerer) block(g *gBlock) *Block {
	b := &Block{Pos: position(g.Lbrace.Pos), End: position(g.End.Pos)}
	for _, s := range g.Stmts {
		b.Stmts = append(b.Stmts, l.stmt(s))
	}
	return b
}

func (l *lowerer) stmt(g *gStmt) Stmt {
	switch {
	case g.Assign != nil:
		a := g.Assign
		return &AssignStmt{Pos: a.Target.X.Position(), Target: a.Target.X, Value: l.expr(a.Value), Op: assignOps[a.Op]}
	case g.Let != nil:
		return &LetStmt{Pos: position(g.Let.Kw.Pos), Name: ident(g.Let.Name), Value: l.expr(g.Let.Value)}
	case g.Choose != nil:
		c := g.Choose
		s := &ChooseStmt{Pos: position(c.Kw.Pos), Var: ident(c.Var), Domain: l.typ(c.Domain), Body: l.block(c.Body)}
		if c.Where != nil {
			s.Where = l.expr(c.Where)
		}
		return s
	case g.For != nil:
		f := g.For
		return &ForStmt{Pos: position(f.Kw.Tok.Pos), Var: ident(f.Var), Domain: l.typ(f.Domain), Body: l.block(f.Body)}
	case g.If != nil:
		return l.ifStmt(g.If)
	case g.Match != nil:
		m := g.Match
		s := &MatchStmt{Pos: position(m.Kw.Pos), X: l.expr(m.X), End: position(m.End.Pos)}
		for _, c := range m.Cases {
			mc := &MatchCase{Body: l.stmt(c.Body)}
			if c.Else != nil {
				mc.Pos = position(c.Else.Pos)
			} else {
				mc.Pos = c.Values[0].X.Position()
			}
			for _, v := range c.Values {
				mc.Values = append(mc.Values, l.expr(v))
			}
			s.Cases = append(s.Cases, mc)
		}
		return s
	case g.Assert != nil:
		a := &AssertStmt{Pos: position(g.Assert.Kw.Pos), Cond: l.expr(g.Assert.Cond)}
		if m := g.Assert.Msg; m.Value != "" {
			msg, err := strconv.Unquote(m.Value)
			if err != nil {
				l.errorf(m.Pos, "invalid string literal %s", m.Value)
			}
			a.Msg = msg
		}
		return a
	case g.Skip != nil:
		return &SkipStmt{Pos: position(g.Skip.Pos)}
	default:
		return l.block(g.Block)
	}
}

func (l *lowerer) ifStmt(g *gIfStmt) *IfStmt {
	s := &IfStmt{Pos: position(g.Kw.Pos), Cond: l.expr(g.Cond), Then: l.block(g.Then)}
	switch {
	case g.ElseIf != nil:
		s.Else = l.ifStmt(g.ElseIf)
	case g.Else != nil:
		s.Else = l.block(g.Else)
	}
	return s
}

// ParseExpr parses src as one expression, such as a watch of `check
// --watch` or the expression of `wrapcheck eval`. The error, if any, is
// an [ErrorList] whose entries read "file:line:col: msg" (filename names
// where src came from). ParseExpr never panics. It is safe for
// concurrent use.
func ParseExpr(filename string, src []byte) (x Expr, err error) {
	var list ErrorList
	defer func() {
		if r := recover(); r != nil {
			list.Add(Position{Filename: filename, Line: 1, Col: 1}, fmt.Sprintf("internal parser error: %v", r))
			x, err = nil, list.Err()
		}
	}()
	toks, _, serr := scanTokens(filename, src, false)
	if serr != nil {
		if se, ok := serr.(*scanError); ok {
			list.Add(position(se.pos), se.msg)
		} else {
			list.Add(Position{Filename: filename}, serr.Error())
		}
		return nil, list.Err()
	}
	if t, ok := tooDeep(toks); ok {
		list.Add(position(t.Pos), "nested too deeply")
		return nil, list.Err()
	}
	p := &exprParser{lex: &cursor{toks: toks}}
	if !p.startsOperand() {
		t := *p.peek()
		list.Add(position(t.Pos), "expected an expression, found "+describe(t))
		return nil, list.Err()
	}
	x = p.expr(PrecLeadsTo)
	if perr := p.bounded(x); perr != nil {
		list.Add(syntaxError(perr, filename))
		return nil, list.Err()
	}
	if t := *p.peek(); t.Type != tokEOF {
		list.Add(position(t.Pos), "expected the end of the expression, found "+describe(t)+hint(t))
		return nil, list.Err()
	}
	return x, nil
}

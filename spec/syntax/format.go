package syntax

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format prints f in the canonical layout: one declaration or statement
// per line, two spaces of indentation per block, single spaces around
// binary operators, at most one blank line where the source had any, and
// every comment where it was (a comment that followed code on its line
// still does; others keep their own line). Parentheses are kept as
// written, and added only where a tree built by hand needs them. Long
// lines are not broken. Format(Parse(Format(f))) equals Format(f).
func Format(f *File) []byte {
	p := &printer{comments: f.Comments}
	p.flush(f.NamePos)
	p.item(f.NamePos)
	p.write("spec " + f.Name)
	p.mark(f.NamePos)
	for _, d := range f.Decls {
		p.item(d.Position())
		p.decl(d)
	}
	p.flush(Position{})
	p.newline()
	return alignComments(p.buf.Bytes())
}

// record prints `record { f1, f2 }` (a record type or literal) with
// field(i) printing field i, and `record {}` when there are none.
func (p *printer) record(n int, end Position, field func(i int)) {
	if n == 0 {
		p.write("record {}")
		p.mark(end)
		return
	}
	p.write("record { ")
	for i := 0; i < n; i++ {
		if i > 0 {
			p.write(", ")
		}
		field(i)
	}
	p.write(" }")
	p.mark(end)
}

// alignComments aligns the trailing // comments of consecutive lines at
// the same indentation in one column, one space after the longest code,
// as gofmt does. A line without a trailing comment, or at another
// indentation, ends a run.
func alignComments(src []byte) []byte {
	lines := bytes.Split(src, []byte("\n"))
	type trailing struct{ code, comment []byte }
	parts := make([]trailing, len(lines))
	for i, l := range lines {
		if at := trailingComment(l); at > 0 {
			parts[i] = trailing{bytes.TrimRight(l[:at], " "), l[at:]}
		}
	}
	indent := func(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " ")) }
	var out bytes.Buffer
	for i := 0; i < len(lines); {
		if parts[i].comment == nil {
			out.Write(lines[i])
			if i < len(lines)-1 {
				out.WriteByte('\n')
			}
			i++
			continue
		}
		j, width := i, 0
		for j < len(lines) && parts[j].comment != nil && indent(lines[j]) == indent(lines[i]) {
			width = max(width, utf8.RuneCount(parts[j].code))
			j++
		}
		for k := i; k < j; k++ {
			out.Write(parts[k].code)
			out.Write(bytes.Repeat([]byte(" "), width-utf8.RuneCount(parts[k].code)+1))
			out.Write(parts[k].comment)
			if k < len(lines)-1 {
				out.WriteByte('\n')
			}
		}
		i = j
	}
	return out.Bytes()
}

// trailingComment returns the byte offset of a // comment that follows
// code on line l, or -1 (no comment, or a comment alone on its line).
func trailingComment(l []byte) int {
	inString := false
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '/' && i+1 < len(l) && l[i+1] == '/':
			if len(bytes.TrimSpace(l[:i])) == 0 {
				return -1
			}
			return i
		case !inString && c == '/' && i+1 < len(l) && l[i+1] == '*':
			// A block comment inside code: do not align this line.
			return -1
		}
	}
	return -1
}

// printer writes the canonical layout. Positions, when known, place
// comments and blank lines.
type printer struct {
	buf         bytes.Buffer
	indent      int
	comments    []*Comment
	next        int  // index of the next comment to print
	lastLine    int  // last source line printed
	lineOpen    bool // the current output line has text
	lineComment bool // the current output line ends in a // comment
	blockStart  bool // nothing printed since the last '{'
	compact     bool // print + - * / % without spaces (range bounds)
	subst       map[string]string
}

// FormatExpr prints e on one line in the canonical layout, with every
// identifier named in subst printed as its replacement (subst may be nil).
func FormatExpr(e Expr, subst map[string]string) string {
	p := &printer{subst: subst}
	p.expr(e)
	return p.buf.String()
}

func (p *printer) write(s string) {
	if !p.lineOpen {
		for i := 0; i < p.indent; i++ {
			p.buf.WriteString("  ")
		}
		p.lineOpen = true
	}
	p.buf.WriteString(s)
}

func (p *printer) newline() {
	if p.lineOpen {
		p.buf.WriteByte('\n')
		p.lineOpen = false
		p.lineComment = false
	}
}

// mark records that source position pos has been printed.
func (p *printer) mark(pos Position) {
	if pos.Line > p.lastLine {
		p.lastLine = pos.Line
	}
}

// blank starts a new line, preceded by one empty line if the source had
// one or more before line.
func (p *printer) blank(line int) {
	p.newline()
	if line > p.lastLine+1 && !p.blockStart && p.buf.Len() > 0 {
		p.buf.WriteByte('\n')
	}
	p.blockStart = false
}

// before reports whether comment c comes before pos; an unknown pos is
// the end of the file.
func before(c *Comment, pos Position) bool {
	return !pos.IsValid() || c.Pos.Offset < pos.Offset
}

// flush prints the comments before pos. A comment on a source line that
// is already printed trails the current output line; others get their own
// line.
func (p *printer) flush(pos Position) {
	for p.next < len(p.comments) && before(p.comments[p.next], pos) {
		c := p.comments[p.next]
		p.next++
		if p.lineOpen && !p.lineComment && c.Pos.Line <= p.lastLine {
			p.write(" ")
		} else {
			p.blank(c.Pos.Line)
		}
		p.write(c.Text)
		p.lineComment = strings.HasPrefix(c.Text, "//")
		p.mark(Position{Line: c.Pos.Line + strings.Count(c.Text, "\n")})
	}
}

// hasComments reports whether a comment comes before pos.
func (p *printer) hasComments(pos Position) bool {
	return p.next < len(p.comments) && before(p.comments[p.next], pos)
}

// item starts a declaration, member, statement or match case at pos.
func (p *printer) item(pos Position) {
	p.flush(pos)
	p.blank(pos.Line)
	p.mark(pos)
}

func (p *printer) open() {
	p.write("{")
	p.indent++
	p.blockStart = true
}

func (p *printer) close(end Position) {
	p.flush(end)
	p.newline()
	p.indent--
	p.write("}")
	p.mark(end)
	p.blockStart = false
}

// ---------------------------------------------------------------------------
// Declarations

func (p *printer) decl(d Decl) {
	switch d := d.(type) {
	case *ConstDecl:
		p.write("const ")
		p.ident(d.Name)
		p.write(" = ")
		p.expr(d.Value)
	case *TypeDecl:
		p.write("type ")
		p.ident(d.Name)
		p.write(" = ")
		p.typ(d.Type)
	case *VarDecl:
		p.varDecl(d)
	case *FnDecl:
		p.write("fn ")
		p.ident(d.Name)
		p.params(d.Params)
		p.write(": ")
		p.typ(d.Result)
		p.write(" = ")
		p.expr(d.Body)
	case *AgentDecl:
		p.write("agent ")
		p.ident(d.Name)
		p.params(d.Params)
		p.write(": ")
		p.typ(d.Result)
		if d.Assume != nil {
			if pos := d.Assume.Position(); pos.IsValid() && pos.Line > p.lastLine {
				// The assumption stays on its own line, as written.
				p.flush(pos)
				p.newline()
				p.indent++
				p.write("assume ")
				p.indent--
			} else {
				p.write(" assume ")
			}
			p.expr(d.Assume)
		}
	case *ProcessDecl:
		p.write("process ")
		p.ident(d.Name)
		if d.Index != nil {
			p.write("[")
			p.param(d.Index)
			p.write("]")
		}
		members := d.Members
		if members == nil {
			for _, v := range d.Vars {
				members = append(members, v)
			}
			for _, a := range d.Actions {
				members = append(members, a)
			}
		}
		if len(members) == 0 && !p.hasComments(d.End) {
			p.write(" {}")
			p.mark(d.End)
			return
		}
		p.write(" ")
		p.open()
		for _, m := range members {
			p.item(m.Position())
			p.decl(m)
		}
		p.close(d.End)
	case *ActionDecl:
		p.write("action ")
		p.ident(d.Name)
		if d.Guard != nil {
			p.write(" when ")
			p.expr(d.Guard)
		}
		p.block(d.Body)
	case *InitDecl:
		p.write("init")
		p.block(d.Body)
	case *InvariantDecl:
		p.write("invariant ")
		p.ident(d.Name)
		p.write(": ")
		p.expr(d.Expr)
	case *PropertyDecl:
		p.write("property ")
		p.ident(d.Name)
		p.write(": ")
		p.expr(d.Formula)
	case *FairnessDecl:
		if d.Strong {
			p.write("fairness strong ")
		} else {
			p.write("fairness weak ")
		}
		p.ident(d.Process)
		if d.Action != nil {
			p.write(".")
			p.ident(*d.Action)
		}
	case *TerminalDecl:
		p.write("terminal ")
		p.expr(d.Expr)
	case *RateDecl, *ProbabilityDecl, *CostDecl, *ExpectedDecl:
		p.quantDecl(d)
	}
}

func (p *printer) ident(id Ident) {
	p.write(id.Name)
	p.mark(id.Pos)
}

func (p *printer) varDecl(d *VarDecl) {
	p.write("var ")
	p.ident(d.Name)
	p.write(": ")
	p.typ(d.Type)
	if d.Init != nil {
		p.write(" = ")
		p.expr(d.Init)
	}
}

func (p *printer) params(ps []*Param) {
	p.write("(")
	for i, q := range ps {
		if i > 0 {
			p.write(", ")
		}
		p.param(q)
	}
	p.write(")")
}

func (p *printer) param(q *Param) {
	p.ident(q.Name)
	p.write(": ")
	p.typ(q.Type)
}

// ---------------------------------------------------------------------------
// Types

func (p *printer) typ(t TypeExpr) {
	p.mark(t.Position())
	switch t := t.(type) {
	case *NamedType:
		p.write(t.Name)
	case *BoolType:
		p.write("bool")
	case *RangeType:
		p.compact = true
		p.exprAt(t.Lo, PrecAdd, PrecAdd, false)
		p.write("..")
		p.exprAt(t.Hi, PrecAdd, PrecAdd, true)
		p.compact = false
	case *EnumType:
		p.write("{")
		for i, m := range t.Members {
			if i > 0 {
				p.write(", ")
			}
			p.ident(m)
		}
		p.write("}")
		p.mark(t.End)
	case *SymmetricType:
		p.write("symmetric ")
		p.exprAt(t.N, PrecAdd, PrecAdd, true)
	case *ArrayType:
		p.write("[")
		p.typ(t.Index)
		p.write("]")
		p.typ(t.Elem)
	case *RecordType:
		p.record(len(t.Fields), t.End, func(i int) { p.param(t.Fields[i]) })
	case *SetType:
		p.write("set of ")
		p.typ(t.Elem)
	case *SeqType:
		if t.Chan {
			p.write("chan[")
		} else {
			p.write("seq[")
		}
		p.exprAt(t.Cap, PrecAdd, PrecAdd, true)
		p.write("] of ")
		p.typ(t.Elem)
	}
}

// ---------------------------------------------------------------------------
// Expressions

// precPostfix is tighter than every operator: operands of postfix forms.
const precPostfix = PrecNeg + 1

func (p *printer) expr(e Expr) { p.exprAt(e, PrecLeadsTo, PrecLeadsTo, true) }

// exprAt prints e where the parser reads binary operators of level minBin
// or tighter and prefix operators of level minPre or tighter; tail reports
// whether nothing follows e in its expression, so that an open-ended form
// (if-then-else, a quantifier) may appear without parentheses.
func (p *printer) exprAt(e Expr, minBin, minPre int, tail bool) {
	p.mark(e.Position())
	switch e := e.(type) {
	case *IdentExpr:
		if r, ok := p.subst[e.Name]; ok {
			p.write(r)
		} else {
			p.write(e.Name)
		}
	case *IntLit:
		if e.Text != "" {
			p.write(e.Text)
		} else {
			p.write(strconv.FormatInt(e.Value, 10))
		}
	case *BoolLit:
		p.write(strconv.FormatBool(e.Value))
	case *UnaryExpr:
		prec, _ := PrefixPrec(e.Op)
		if prec < minPre {
			p.paren(e)
			return
		}
		if e.Op == Neg {
			p.write("-")
			if u, ok := e.X.(*UnaryExpr); ok && u.Op == Neg {
				p.write(" ")
			}
			p.exprAt(e.X, precPostfix, PrecNeg, tail)
			return
		}
		p.write(e.Op.String() + " ")
		p.exprAt(e.X, PrecCmp, PrecNot, tail)
	case *BinaryExpr:
		prec, right, _ := BinaryPrec(e.Op)
		if prec < minBin {
			p.paren(e)
			return
		}
		lmin, rmin := prec+1, prec+1
		if right {
			rmin = prec
		} else if prec != PrecCmp {
			lmin = prec
		}
		p.exprAt(e.X, lmin, lmin, false)
		if p.compact && isSymbol(e.Op) {
			p.write(e.Op.String())
		} else {
			p.write(" " + e.Op.String() + " ")
		}
		p.mark(e.OpPos)
		p.exprAt(e.Y, rmin, rmin, tail)
	case *IndexExpr:
		p.exprAt(e.X, precPostfix, precPostfix, false)
		p.write("[")
		p.expr(e.Index)
		p.write("]")
		p.mark(e.End)
	case *SelectorExpr:
		p.exprAt(e.X, precPostfix, precPostfix, false)
		p.write(".")
		p.ident(e.Field)
	case *CallExpr:
		p.ident(e.Fn)
		p.args(e.Args)
		p.mark(e.End)
	case *AskExpr:
		p.write("ask ")
		p.ident(e.Agent)
		p.args(e.Args)
		p.mark(e.End)
	case *CondExpr:
		if !tail {
			p.paren(e)
			return
		}
		p.write("if ")
		p.expr(e.Cond)
		p.write(" then ")
		p.expr(e.Then)
		p.write(" else ")
		p.expr(e.Else)
	case *QuantExpr:
		if !tail {
			p.paren(e)
			return
		}
		p.write(e.Kind.String() + " ")
		p.ident(e.Var)
		p.write(" in ")
		p.typ(e.Domain)
		p.write(": ")
		p.expr(e.Body)
	case *SetLit:
		p.write("{")
		for i, x := range e.Elems {
			if i > 0 {
				p.write(", ")
			}
			p.expr(x)
		}
		p.write("}")
		p.mark(e.End)
	case *ArrayLit:
		p.write("[")
		for i, x := range e.Elems {
			if i > 0 {
				p.write(", ")
			}
			if i == 0 && startsMembership(x) {
				p.paren(x) // [x in s, ...] would be a comprehension
				continue
			}
			p.expr(x)
		}
		p.write("]")
		p.mark(e.End)
	case *ArrayComp:
		p.write("[")
		p.ident(e.Var)
		p.write(" in ")
		p.typ(e.Domain)
		p.write(": ")
		p.expr(e.Body)
		p.write("]")
		p.mark(e.End)
	case *RecordLit:
		p.record(len(e.Fields), e.End, func(i int) {
			p.ident(e.Fields[i].Name)
			p.write(": ")
			p.expr(e.Fields[i].Value)
		})
	case *ParenExpr:
		p.write("(")
		p.expr(e.X)
		p.write(")")
		p.mark(e.End)
	case *badExpr:
		p.write("_")
	}
}

func (p *printer) paren(e Expr) {
	p.write("(")
	p.expr(e)
	p.write(")")
}

func (p *printer) args(args []Expr) {
	p.write("(")
	for i, a := range args {
		if i > 0 {
			p.write(", ")
		}
		p.expr(a)
	}
	p.write(")")
}

// startsMembership reports whether e may print as `x in ...`: a
// membership test of a name on its leftmost spine of binary operators.
func startsMembership(e Expr) bool {
	for {
		b, ok := e.(*BinaryExpr)
		if !ok {
			return false
		}
		if _, ok := b.X.(*IdentExpr); ok && b.Op == In {
			return true
		}
		e = b.X
	}
}

// isSymbol reports whether op is written with punctuation.
func isSymbol(op Token) bool {
	switch op {
	case Add, Sub, Mul, Div, Mod, BitAnd, BitOr, BitXor, Shl, Shr:
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Statements

// block prints " { stmts }".
func (p *printer) block(b *Block) {
	p.write(" ")
	p.body(b)
}

// body prints "{ stmts }".
func (p *printer) body(b *Block) {
	if len(b.Stmts) == 0 && !p.hasComments(b.End) {
		p.write("{}")
		p.mark(b.End)
		return
	}
	p.open()
	p.mark(b.Pos)
	for _, s := range b.Stmts {
		p.item(s.Position())
		p.stmt(s)
	}
	p.close(b.End)
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *Block:
		p.body(s)
	case *AssignStmt:
		p.exprAt(s.Target, precPostfix, precPostfix, false)
		p.write(" " + s.Op.String() + " ")
		p.expr(s.Value)
	case *LetStmt:
		p.write("let ")
		p.ident(s.Name)
		p.write(" = ")
		p.expr(s.Value)
	case *ChooseStmt:
		p.write("choose ")
		p.ident(s.Var)
		p.write(" in ")
		p.typ(s.Domain)
		if s.Where != nil {
			p.write(" where ")
			p.expr(s.Where)
		}
		p.block(s.Body)
	case *ForStmt:
		p.write("for ")
		p.ident(s.Var)
		p.write(" in ")
		p.typ(s.Domain)
		p.block(s.Body)
	case *IfStmt:
		p.ifStmt(s)
	case *MatchStmt:
		p.write("match ")
		p.expr(s.X)
		if len(s.Cases) == 0 && !p.hasComments(s.End) {
			p.write(" {}")
			p.mark(s.End)
			return
		}
		p.write(" ")
		p.open()
		for _, c := range s.Cases {
			p.item(c.Pos)
			if c.Values == nil {
				p.write("else")
			}
			for i, v := range c.Values {
				if i > 0 {
					p.write(", ")
				}
				p.expr(v)
			}
			p.write(" => ")
			p.stmt(c.Body)
		}
		p.close(s.End)
	case *AssertStmt:
		p.write("assert ")
		p.expr(s.Cond)
		if s.Msg != "" {
			p.write(" " + strconv.Quote(s.Msg))
		}
	case *SkipStmt:
		p.write("skip")
	}
}

func (p *printer) ifStmt(s *IfStmt) {
	p.write("if ")
	p.expr(s.Cond)
	p.block(s.Then)
	switch e := s.Else.(type) {
	case *IfStmt:
		p.write(" else ")
		p.mark(e.Pos)
		p.ifStmt(e)
	case *Block:
		p.write(" else")
		p.block(e)
	}
}

package lsp

import (
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// keywords are offered by completion; a test checks that each is a
// reserved word of the lexer. `then` and `assume` are contextual words.
var keywords = []string{
	"spec", "const", "type", "var", "fn", "agent", "process", "action", "when", "init",
	"invariant", "property", "fairness", "weak", "strong", "terminal", "let", "ask",
	"choose", "in", "where", "if", "else", "match", "assert", "skip", "bool",
	"symmetric", "record", "set", "of", "true", "false", "and", "or", "not", "implies",
	"forall", "exists", "count", "always", "eventually", "next", "until", "release",
	"weakuntil", "leadsto",
}

var completionKinds = [...]int{
	symConst: completionKindConstant, symType: completionKindClass, symVar: completionKindVariable,
	symLocal: completionKindVariable, symFn: completionKindFunction, symAgent: completionKindInterface,
	symProcess: completionKindModule, symMember: completionKindEnumMember, symParam: completionKindVariable,
	symIndex: completionKindTypeParam, symResult: completionKindVariable, symLet: completionKindVariable,
	symChoose: completionKindVariable, symQuant: completionKindVariable, symField: completionKindField,
	symAction: completionKindEvent, symInvariant: completionKindProperty, symProperty: completionKindProperty,
}

// completion offers, after a dot, the fields of a record or the locals of
// a process; elsewhere the names in scope at the cursor and the
// keywords, with the members of the expected enum first after `==`,
// `!=`, `:=` or `=`. A line being typed usually does not parse: the
// names then come from the latest version of the document that did.
func (s *Server) completion(req *request) (any, *rpcError) {
	var p textDocumentPositionParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	cur, good, rerr := s.lookup(req, p.TextDocument.URI)
	if rerr != nil {
		return nil, rerr
	}
	list := completionList{Items: []completionItem{}}
	a := cur
	if a.ix == nil {
		a = good
	}
	if a == nil || a.ix == nil {
		for _, k := range keywords {
			list.Items = append(list.Items, completionItem{Label: k, Kind: completionKindKeyword, SortText: "2" + k})
		}
		return list, nil
	}
	d := cur.doc
	off := d.offset(p.Position)
	_, start := d.wordAt(off)
	if start > off {
		start = off
	}
	at := d.specPos(p.Position)
	sc := a.ix.scopeAt(at)
	if start > 0 && d.text[start-1] == '.' {
		recv := receiver(d.text[:start-1])
		for _, m := range a.ix.members(sc, recv) {
			list.Items = append(list.Items, completionItem{Label: m.name, Kind: completionKinds[m.kind], Detail: typeExprText(m.typ)})
		}
		return list, nil
	}
	want := a.ix.expectedEnum(sc, d.text[:start])
	for _, sym := range sc.all() {
		switch sym.kind {
		case symAction, symInvariant, symProperty, symField, symLocal:
			if sym.kind != symLocal || sc.lookup(sym.name) != sym {
				continue
			}
		}
		item := completionItem{Label: sym.name, Kind: completionKinds[sym.kind], Detail: sym.kind.String(), SortText: "1" + sym.name}
		if sym.typ != nil && sym.kind != symType {
			item.Detail += ": " + typeExprText(sym.typ)
		}
		if sym.kind == symMember && want != nil && sym.enum == want {
			item.SortText = "0" + sym.name
		}
		list.Items = append(list.Items, item)
	}
	for _, k := range keywords {
		list.Items = append(list.Items, completionItem{Label: k, Kind: completionKindKeyword, SortText: "2" + k})
	}
	return list, nil
}

// scopeAt returns the scope visible at p: the globals, the locals of the
// process around p, and every local binding whose range holds p.
func (ix *index) scopeAt(p syntax.Position) *scope {
	sc := &scope{names: ix.globals}
	for _, pi := range ix.procs {
		d := pi.decl
		if !before(p, d.Pos) && !before(d.End, p) {
			sc = sc.child()
			for name, s := range pi.locals {
				sc.names[name] = s
			}
		}
	}
	var locals []*symbol
	for _, s := range ix.syms {
		if s.to.IsValid() && !before(p, s.from) && !before(s.to, p) {
			locals = append(locals, s)
		}
	}
	sort.SliceStable(locals, func(i, j int) bool { return locals[i].from.Before(locals[j].from) })
	for _, s := range locals {
		sc = sc.child()
		sc.names[s.name] = s
	}
	return sc
}

// before reports whether p comes before q in a file (their file names
// are not compared).
func before(p, q syntax.Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// all returns every name visible in sc, innermost first, each name once.
func (sc *scope) all() []*symbol {
	seen := map[string]bool{}
	var out []*symbol
	for s := sc; s != nil; s = s.parent {
		var names []string
		for n := range s.names {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, s.names[n])
			}
		}
	}
	return out
}

// receiver returns the expression text that ends at the end of text: a
// chain of names, indexes and field selections such as `P[i].x`.
func receiver(text string) string {
	i := len(text)
	for i > 0 {
		c := text[i-1]
		switch {
		case isWordByte(c) || c == '.':
			i--
		case c == ']':
			depth := 0
			for i > 0 {
				i--
				if text[i] == ']' {
					depth++
				} else if text[i] == '[' {
					depth--
					if depth == 0 {
						break
					}
				}
			}
		default:
			return text[i:]
		}
	}
	return text[i:]
}

// members returns the names that may follow `recv.`: the locals of a
// process, or the fields of a record.
func (ix *index) members(sc *scope, recv string) []*symbol {
	t, pi := ix.chainType(sc, recv)
	var out []*symbol
	if pi != nil {
		for _, s := range pi.locals {
			out = append(out, s)
		}
	} else if rt, ok := ix.underlying(t).(*syntax.RecordType); ok {
		for _, s := range ix.fields[rt] {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos.Before(out[j].pos) })
	return out
}

// chainType resolves the type of a chain such as `a.b[i].c`; when the
// chain names a process (`P` or `P[v]`) it returns that process instead.
func (ix *index) chainType(sc *scope, chain string) (syntax.TypeExpr, *procInfo) {
	parts := splitChain(chain)
	var t syntax.TypeExpr
	var pi *procInfo
	for i, part := range parts {
		name, indexes := part.name, part.indexes
		switch {
		case i == 0:
			s := sc.lookup(name)
			if s == nil {
				return nil, nil
			}
			if s.kind == symProcess {
				pi = ix.procs[name]
				if len(parts) == 1 {
					return nil, pi
				}
				continue
			}
			t = s.typ
		case pi != nil:
			s := pi.locals[name]
			if s == nil {
				return nil, nil
			}
			t, pi = s.typ, nil
		default:
			rt, ok := ix.underlying(t).(*syntax.RecordType)
			if !ok {
				return nil, nil
			}
			s := ix.fields[rt][name]
			if s == nil {
				return nil, nil
			}
			t = s.typ
		}
		for k := 0; k < indexes; k++ {
			at, ok := ix.underlying(t).(*syntax.ArrayType)
			if !ok {
				return nil, nil
			}
			t = at.Elem
		}
	}
	return t, nil
}

// link is one name of a chain, with the number of indexes after it.
type link struct {
	name    string
	indexes int
}

// splitChain splits `a.b[i][j].c` at its top-level dots.
func splitChain(chain string) []link {
	var out []link
	cur, depth := link{}, 0
	for i := 0; i < len(chain); i++ {
		switch c := chain[i]; {
		case c == '[':
			if depth == 0 {
				cur.indexes++
			}
			depth++
		case c == ']':
			depth--
		case depth > 0:
		case c == '.':
			out = append(out, cur)
			cur = link{}
		default:
			cur.name += string(c)
		}
	}
	return append(out, cur)
}

// expectedEnum returns the enum type expected after text, when text ends
// with `x ==`, `x !=`, `x :=` or a variable declaration's `=`, and x has
// an enum type.
func (ix *index) expectedEnum(sc *scope, text string) *syntax.EnumType {
	text = strings.TrimRight(text, " \t")
	var lhs string
	switch {
	case strings.HasSuffix(text, "=="), strings.HasSuffix(text, "!="), strings.HasSuffix(text, ":="):
		lhs = text[:len(text)-2]
	case strings.HasSuffix(text, "="):
		lhs = text[:len(text)-1]
		// `var x: T =`: the type is the enum.
		if i := strings.LastIndexByte(lhs, ':'); i >= 0 {
			name := strings.TrimSpace(lhs[i+1:])
			if s := sc.lookup(name); s != nil && s.kind == symType {
				e, _ := ix.underlying(s.typ).(*syntax.EnumType)
				return e
			}
		}
	default:
		return nil
	}
	t, _ := ix.chainType(sc, receiver(strings.TrimRight(lhs, " \t")))
	e, _ := ix.underlying(t).(*syntax.EnumType)
	return e
}

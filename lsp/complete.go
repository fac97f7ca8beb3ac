package lsp

import (
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// wordItems are the completion items of the language's words, from
// spec/syntax's one table: the reserved and contextual words as
// keywords, the builtin functions as functions (a name the spec declares,
// in shadow, is left out: the scope offers it). Predeclared names
// (result) are offered by their scope.
func wordItems(shadow map[string]bool) []completionItem {
	var out []completionItem
	for _, w := range syntax.Words() {
		kind := completionKindKeyword
		switch {
		case shadow[w.Name] || w.Kind == syntax.Predeclared:
			continue
		case w.Kind == syntax.Builtin:
			kind = completionKindFunction
		}
		out = append(out, completionItem{Label: w.Name, Kind: kind, Detail: w.Kind.String(), SortText: "2" + w.Name})
	}
	return out
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
		list.Items = append(list.Items, wordItems(nil)...)
		return list, nil
	}
	d := cur.doc
	off := d.offset(p.Position)
	_, start := d.wordAt(off)
	if start > off {
		start = off
	}
	at := d.specPos(p.Position)
	if start > 0 && d.text[start-1] == '.' {
		recv := receiver(d.text[:start-1])
		for _, m := range a.ix.members(at, recv) {
			list.Items = append(list.Items, completionItem{Label: m.Name, Kind: lspKinds[m.Kind].completion, Detail: typeText(m)})
		}
		return list, nil
	}
	want := a.ix.expectedEnum(at, d.text[:start])
	shadow := map[string]bool{}
	for _, o := range a.ix.visible(at) {
		shadow[o.Name] = true
		item := completionItem{Label: o.Name, Kind: lspKinds[o.Kind].completion, Detail: o.Kind.String(), SortText: "1" + o.Name}
		switch o.Kind {
		case spec.ObjConst, spec.ObjType, spec.ObjMember, spec.ObjProcess:
		default:
			if t := typeText(o); t != "" {
				item.Detail += ": " + t
			}
		}
		if o.Kind == spec.ObjMember && want != nil && o.Type == want {
			item.SortText = "0" + o.Name
		}
		list.Items = append(list.Items, item)
	}
	list.Items = append(list.Items, wordItems(shadow)...)
	return list, nil
}

// visible returns every name visible at p, innermost first, each name
// once, each scope's names sorted.
func (ix *index) visible(p syntax.Position) []*spec.Object {
	seen := map[string]bool{}
	var out []*spec.Object
	for s := ix.scopeAt(p); s != nil; s = s.Parent {
		for _, n := range s.Names() {
			o := s.Lookup(n)
			if seen[n] || !visibleAt(o, p) {
				continue
			}
			seen[n] = true
			out = append(out, o)
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

// members returns the names that may follow `recv.` at p: the locals of
// a process, the fields of a record, or the members of an enum type.
func (ix *index) members(p syntax.Position, recv string) []*spec.Object {
	if o := ix.lookupAt(p, recv); o != nil && o.Kind == spec.ObjType {
		return ix.info.MembersOf(o.Type)
	}
	t, proc := ix.chain(p, recv)
	var out []*spec.Object
	switch {
	case proc != nil:
		for _, n := range proc.Names() {
			if o := proc.Lookup(n); o.Kind == spec.ObjLocal {
				out = append(out, o)
			}
		}
	case t != nil && t.Kind == spec.RecordKind:
		for _, f := range t.Fields {
			if o := ix.info.FieldOf(f); o != nil {
				out = append(out, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos.Before(out[j].Pos) })
	return out
}

// chain returns the type of a chain such as `a.b[i].c` at p; when the
// chain names a process (`P` or `P[v]`) it returns that process's scope
// instead.
func (ix *index) chain(p syntax.Position, chain string) (*spec.Type, *spec.Scope) {
	parts := splitChain(chain)
	var t *spec.Type
	var proc *spec.Scope
	for i, part := range parts {
		switch {
		case i == 0:
			o := ix.lookupAt(p, part.name)
			if o == nil {
				return nil, nil
			}
			if o.Kind == spec.ObjProcess {
				if proc = ix.info.Scopes[o.Decl]; proc == nil || len(parts) == 1 {
					return nil, proc
				}
				continue
			}
			t = o.Type
		case proc != nil:
			o := proc.Lookup(part.name)
			if o == nil || o.Kind != spec.ObjLocal {
				return nil, nil
			}
			t, proc = o.Type, nil
		default:
			if t == nil || t.Kind != spec.RecordKind {
				return nil, nil
			}
			f := t.FieldByName(part.name)
			if f == nil {
				return nil, nil
			}
			t = f.Type
		}
		for k := 0; k < part.indexes; k++ {
			if t == nil || t.Kind != spec.ArrayKind {
				return nil, nil
			}
			t = t.Elem
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

// expectedEnum returns the enum type expected after text at p, when text
// ends with `x ==`, `x !=`, `x :=` or a variable declaration's `=`, and x
// has an enum type.
func (ix *index) expectedEnum(p syntax.Position, text string) *spec.Type {
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
			if o := ix.lookupAt(p, name); o != nil && o.Kind == spec.ObjType {
				return enumType(o.Type)
			}
		}
	default:
		return nil
	}
	t, _ := ix.chain(p, receiver(strings.TrimRight(lhs, " \t")))
	return enumType(t)
}

// enumType returns t when it is an enum type, else nil.
func enumType(t *spec.Type) *spec.Type {
	if t != nil && t.Kind == spec.EnumKind {
		return t
	}
	return nil
}

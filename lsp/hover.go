package lsp

import (
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// refAt returns the analysis of the document named in params and the
// reference under its position (nil when there is none).
func (s *Server) refAt(req *request) (*analysis, *ref, *rpcError) {
	var p textDocumentPositionParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, nil, rerr
	}
	a, _, rerr := s.lookup(req, p.TextDocument.URI)
	if rerr != nil {
		return nil, nil, rerr
	}
	if a.ix == nil {
		return a, nil, nil
	}
	return a, a.ix.at(a.doc.specPos(p.Position)), nil
}

func (s *Server) hover(req *request) (any, *rpcError) {
	a, r, rerr := s.refAt(req)
	if rerr != nil || r == nil {
		return nil, rerr
	}
	rng := a.doc.nameRange(r.pos, r.name)
	return hover{Contents: markupContent{Kind: "markdown", Value: describe(a, r.sym)}, Range: &rng}, nil
}

// describe returns the Markdown hover text of s: its declaration as the
// formatter prints it, and what the checked model knows (a constant's
// value, the values a variable ranges over, the instances of a family).
func describe(a *analysis, s *symbol) string {
	var code, notes []string
	m := a.model
	switch s.kind {
	case symConst:
		code = append(code, declText(s.decl.(syntax.Decl)))
		if m != nil {
			for _, c := range m.Consts {
				if c.Name == s.name {
					notes = append(notes, fmt.Sprintf("value: `%d`", c.Value))
				}
			}
		}
	case symType:
		code = append(code, declText(s.decl.(syntax.Decl)))
		if m != nil {
			for _, t := range m.Types {
				if t.Name == s.name {
					notes = append(notes, "values: `"+typeText(t, false)+"`")
					break
				}
			}
		}
	case symVar:
		code = append(code, declText(s.decl.(syntax.Decl)))
		notes = append(notes, varNotes(m, s.name)...)
	case symLocal:
		code = append(code, fmt.Sprintf("var %s.%s: %s", s.proc.Name.Name, s.name, typeExprText(s.typ)))
		notes = append(notes, varNotes(m, s.proc.Name.Name+"."+s.name)...)
	case symFn, symAgent, symInvariant, symProperty:
		code = append(code, declText(s.decl.(syntax.Decl)))
		if s.kind == symAgent {
			notes = append(notes, "a chaotic agent: `ask` branches over every answer of its result type that satisfies the assumption; the assumption sees only the parameters and `result`")
		}
	case symProcess:
		p := s.decl.(*syntax.ProcessDecl)
		head := "process " + p.Name.Name
		if p.Index != nil {
			head += fmt.Sprintf("[%s: %s]", p.Index.Name.Name, typeExprText(p.Index.Type))
		}
		code = append(code, head)
		notes = append(notes, fmt.Sprintf("%d variables, %d actions", len(p.Vars), len(p.Actions)))
		if m != nil && p.Index != nil {
			n := 0
			for _, pr := range m.Processes {
				if pr.Family == p.Name.Name {
					n++
				}
			}
			notes = append(notes, fmt.Sprintf("%d instances", n))
		}
	case symMember:
		owner := s.enumName
		if owner == "" {
			owner = typeExprText(s.enum)
		}
		code = append(code, fmt.Sprintf("%s  // member of %s", s.name, owner))
		var names []string
		for _, mem := range s.enum.Members {
			names = append(names, mem.Name)
		}
		notes = append(notes, "enum: `{"+strings.Join(names, ", ")+"}`")
	case symAction:
		act := s.decl.(*syntax.ActionDecl)
		head := "action "
		if s.proc != nil {
			head += s.proc.Name.Name + "."
		}
		head += s.name
		if act.Guard != nil {
			head += " when " + exprText(act.Guard)
		}
		code = append(code, head)
	default:
		line := fmt.Sprintf("(%s) %s", s.kind, s.name)
		if s.typ != nil {
			line += ": " + typeExprText(s.typ)
		}
		code = append(code, line)
		if s.kind == symResult {
			notes = append(notes, "the agent's answer, in its assumption")
		}
	}
	var b strings.Builder
	b.WriteString("```wrap\n")
	b.WriteString(strings.Join(code, "\n"))
	b.WriteString("\n```")
	for _, n := range notes {
		b.WriteString("\n\n")
		b.WriteString(n)
	}
	return b.String()
}

// varNotes describes the type of the state variable called name (a global,
// or "P.x" for a process local) in the checked model.
func varNotes(m *spec.Model, name string) []string {
	if m == nil {
		return nil
	}
	proc, local, isLocal := strings.Cut(name, ".")
	for _, v := range m.Vars {
		match := v.Name == name
		if isLocal && !match {
			match = v.Family == proc && v.Local == local
		}
		if match {
			return []string{"values: `" + typeText(v.Type, false) + "`"}
		}
	}
	return nil
}

// typeText writes a resolved type; named types nested inside it are
// written by name, and the top level is expanded unless short is set.
func typeText(t *spec.Type, short bool) string {
	if t == nil {
		return "invalid"
	}
	if short && t.Name != "" {
		return t.Name
	}
	switch t.Kind {
	case spec.BoolKind:
		return "bool"
	case spec.IntKind:
		return "int"
	case spec.RangeKind:
		return fmt.Sprintf("%d..%d", t.Lo, t.Hi)
	case spec.EnumKind:
		return "{" + strings.Join(t.Names, ", ") + "}"
	case spec.SymmetricKind:
		return fmt.Sprintf("symmetric %d {%s}", len(t.Names), strings.Join(t.Names, ", "))
	case spec.ArrayKind:
		return "[" + typeText(t.Index, true) + "]" + typeText(t.Elem, true)
	case spec.RecordKind:
		var fs []string
		for _, f := range t.Fields {
			fs = append(fs, f.Name+": "+typeText(f.Type, true))
		}
		return "record { " + strings.Join(fs, ", ") + " }"
	case spec.SetKind:
		return "set of " + typeText(t.Elem, true)
	}
	return t.Kind.String()
}

// declText prints one declaration as the formatter does. A process is
// printed whole; callers that want its header build it themselves.
func declText(d syntax.Decl) string {
	out := string(syntax.Format(&syntax.File{Name: "x", Decls: []syntax.Decl{d}}))
	_, rest, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(rest)
}

// typeExprText prints a type expression as written ("?" when unknown).
func typeExprText(t syntax.TypeExpr) string {
	if t == nil {
		return "?"
	}
	return strings.TrimPrefix(declText(&syntax.TypeDecl{Name: syntax.Ident{Name: "T"}, Type: t}), "type T = ")
}

// exprText prints an expression.
func exprText(e syntax.Expr) string {
	return strings.TrimPrefix(declText(&syntax.ConstDecl{Name: syntax.Ident{Name: "C"}, Value: e}), "const C = ")
}

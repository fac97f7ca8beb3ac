package lsp

import (
	"fmt"
	"github.com/wrapcheck/wrapcheck/report"
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
	return hover{Contents: markupContent{Kind: "markdown", Value: describe(a, r.obj)}, Range: &rng}, nil
}

// describe returns the Markdown hover text of o: its declaration as the
// formatter prints it, and what the checker found (the values of a type
// or variable; a constant's value and the instances of a family, from the
// model of a spec that checks).
func describe(a *analysis, o *spec.Object) string {
	var code, notes []string
	m := a.model
	values := func() {
		if o.Type != nil {
			notes = append(notes, "values: `"+spec.TypeString(o.Type, 1)+"`")
		}
	}
	switch o.Kind {
	case spec.ObjConst:
		code = append(code, declText(o.Decl.(syntax.Decl)))
		if m != nil {
			for _, c := range m.Consts {
				if c.Name == o.Name {
					notes = append(notes, fmt.Sprintf("value: `%d`", c.Value))
				}
			}
		}
	case spec.ObjType, spec.ObjVar:
		code = append(code, declText(o.Decl.(syntax.Decl)))
		values()
	case spec.ObjLocal:
		code = append(code, fmt.Sprintf("var %s.%s: %s", o.Owner.(*syntax.ProcessDecl).Name.Name, o.Name, typeText(o)))
		values()
	case spec.ObjFn, spec.ObjAgent, spec.ObjInvariant, spec.ObjProperty:
		code = append(code, declText(o.Decl.(syntax.Decl)))
		if o.Kind == spec.ObjAgent {
			notes = append(notes, "a chaotic agent: `ask` branches over every answer of its result type that satisfies the assumption; the assumption sees only the parameters and `result`")
		}
	case spec.ObjProcess:
		p, ok := o.Decl.(*syntax.ProcessDecl)
		if !ok {
			code = append(code, "process main")
			notes = append(notes, "the process of the top-level actions")
			break
		}
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
	case spec.ObjMember:
		et := o.Decl.(*syntax.EnumType)
		owner := typeExprText(et)
		if o.Type != nil && o.Type.Name != "" {
			owner = o.Type.Name
		}
		code = append(code, fmt.Sprintf("%s  // member of %s", o.Name, owner))
		var names []string
		for _, mem := range et.Members {
			names = append(names, mem.Name)
		}
		notes = append(notes, "enum: `{"+strings.Join(names, ", ")+"}`")
	case spec.ObjAction:
		act := o.Decl.(*syntax.ActionDecl)
		head := "action "
		if p, ok := o.Owner.(*syntax.ProcessDecl); ok {
			head += p.Name.Name + "."
		}
		head += o.Name
		if act.Guard != nil {
			head += " when " + exprText(act.Guard)
		}
		code = append(code, head)
	default:
		line := fmt.Sprintf("(%s) %s", o.Kind, o.Name)
		if t := typeText(o); t != "" {
			line += ": " + t
		}
		code = append(code, line)
		if o.Kind == spec.ObjResult {
			notes = append(notes, "the agent's answer, in its assumption")
		}
	}
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(report.MarkdownFence("wrap", strings.Join(code, "\n")), "\n"))
	for _, n := range notes {
		b.WriteString("\n\n")
		b.WriteString(n)
	}
	return b.String()
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

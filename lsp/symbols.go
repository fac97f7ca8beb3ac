package lsp

import (
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func (s *Server) documentSymbol(req *request) (any, *rpcError) {
	a, rerr := s.document(req)
	if rerr != nil {
		return nil, rerr
	}
	out := []documentSymbol{}
	if a.file == nil {
		return out, nil
	}
	return outline(a.doc, a.file), nil
}

// outline returns the document symbols of f: every declaration, with
// the members of enums and records, and the variables and actions of
// processes as children.
func outline(d *document, f *syntax.File) []documentSymbol {
	out := []documentSymbol{}
	for i, decl := range f.Decls {
		end := d.end()
		if i+1 < len(f.Decls) {
			end = d.endBefore(f.Decls[i+1].Position())
		}
		start := d.toLSP(decl.Position())
		sym := func(name string, pos syntax.Position, kind int, detail string) documentSymbol {
			sel := d.nameRange(pos, name)
			if !pos.IsValid() {
				sel = lspRange{Start: start, End: start}
			}
			return documentSymbol{Name: name, Detail: shortDetail(detail), Kind: kind, Range: lspRange{Start: start, End: maxPos(end, sel.End)}, SelectionRange: sel}
		}
		switch x := decl.(type) {
		case *syntax.ConstDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindConstant, "= "+exprText(x.Value)))
		case *syntax.TypeDecl:
			ds := sym(x.Name.Name, x.Name.Pos, symbolKindClass, typeExprText(x.Type))
			ds.Children = typeChildren(d, x.Type)
			if _, ok := x.Type.(*syntax.EnumType); ok {
				ds.Kind = symbolKindEnum
			}
			out = append(out, ds)
		case *syntax.VarDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindVariable, typeExprText(x.Type)))
		case *syntax.FnDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindFunction, "fn"))
		case *syntax.AgentDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindInterface, "agent"))
		case *syntax.ProcessDecl:
			ds := sym(x.Name.Name, x.Name.Pos, symbolKindNamespace, "process")
			ds.Range.End = maxPos(d.toLSP(x.End), ds.SelectionRange.End)
			ds.Range.End.Character++
			members := x.Members
			if members == nil {
				for _, v := range x.Vars {
					members = append(members, v)
				}
				for _, a := range x.Actions {
					members = append(members, a)
				}
			}
			for j, mem := range members {
				mend := d.endBefore(x.End)
				if j+1 < len(members) {
					mend = d.endBefore(members[j+1].Position())
				}
				mstart := d.toLSP(mem.Position())
				switch m := mem.(type) {
				case *syntax.VarDecl:
					sel := d.nameRange(m.Name.Pos, m.Name.Name)
					ds.Children = append(ds.Children, documentSymbol{Name: m.Name.Name, Detail: shortDetail(typeExprText(m.Type)), Kind: symbolKindVariable,
						Range: lspRange{Start: mstart, End: maxPos(mend, sel.End)}, SelectionRange: sel})
				case *syntax.ActionDecl:
					sel := d.nameRange(m.Name.Pos, m.Name.Name)
					if m.Body != nil {
						mend = maxPos(d.toLSP(m.Body.End), sel.End)
						mend.Character++
					}
					ds.Children = append(ds.Children, documentSymbol{Name: m.Name.Name, Detail: "action", Kind: symbolKindMethod,
						Range: lspRange{Start: mstart, End: maxPos(mend, sel.End)}, SelectionRange: sel})
				}
			}
			out = append(out, ds)
		case *syntax.ActionDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindMethod, "action"))
		case *syntax.InitDecl:
			out = append(out, sym("init", x.Pos, symbolKindEvent, ""))
		case *syntax.InvariantDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindBoolean, "invariant"))
		case *syntax.PropertyDecl:
			out = append(out, sym(x.Name.Name, x.Name.Pos, symbolKindBoolean, "property"))
		case *syntax.TerminalDecl:
			out = append(out, sym("terminal", x.Pos, symbolKindEvent, exprText(x.Expr)))
		case *syntax.FairnessDecl:
			name := "fairness " + x.Process.Name
			if x.Action != nil {
				name += "." + x.Action.Name
			}
			out = append(out, sym(name, x.Pos, symbolKindEvent, ""))
		}
	}
	return out
}

// typeChildren lists the members of an enum or the fields of a record.
func typeChildren(d *document, t syntax.TypeExpr) []documentSymbol {
	var out []documentSymbol
	switch t := t.(type) {
	case *syntax.EnumType:
		for _, m := range t.Members {
			r := d.nameRange(m.Pos, m.Name)
			out = append(out, documentSymbol{Name: m.Name, Kind: symbolKindEnumMem, Range: r, SelectionRange: r})
		}
	case *syntax.RecordType:
		for _, f := range t.Fields {
			r := d.nameRange(f.Name.Pos, f.Name.Name)
			out = append(out, documentSymbol{Name: f.Name.Name, Detail: shortDetail(typeExprText(f.Type)), Kind: symbolKindField, Range: r, SelectionRange: r})
		}
	}
	return out
}

// endBefore returns the end of the last line before the line of p that is
// not blank (the end of the previous declaration, roughly), or the start
// of p's line when there is none.
func (d *document) endBefore(p syntax.Position) position {
	line := d.toLSP(p).Line - 1
	for line >= 0 && len(trimSpace(d.line(line))) == 0 {
		line--
	}
	if line < 0 {
		return position{Line: max(d.toLSP(p).Line, 0)}
	}
	return position{Line: line, Character: utf16Prefix(d.line(line), len([]rune(d.line(line))))}
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func maxPos(a, b position) position {
	if a.Line > b.Line || a.Line == b.Line && a.Character >= b.Character {
		return a
	}
	return b
}

// shortDetail returns the detail of a symbol (a constant's value, a
// type) with its middle elided when it is longer than 80 bytes: a
// literal of a thousand digits is no outline entry.
func shortDetail(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:38]+"..."+s[len(s)-38:], "?")
}

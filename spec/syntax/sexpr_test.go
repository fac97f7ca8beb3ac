package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// sexpr prints an AST node as a compact s-expression, for tests.
func sexpr(n any) string {
	var b strings.Builder
	writeSexpr(&b, n)
	return b.String()
}

func writeSexpr(b *strings.Builder, n any) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	list := func(head string, xs ...any) {
		b.WriteString("(" + head)
		for _, x := range xs {
			b.WriteByte(' ')
			writeSexpr(b, x)
		}
		b.WriteByte(')')
	}
	switch n := n.(type) {
	case nil:
		b.WriteString("nil")
	case string:
		b.WriteString(n)
	case Ident:
		b.WriteString(n.Name)
	case *Ident:
		if n == nil {
			b.WriteString("nil")
		} else {
			b.WriteString(n.Name)
		}
	case *File:
		xs := []any{}
		for _, d := range n.Decls {
			xs = append(xs, d)
		}
		list("spec "+n.Name, xs...)
	case *ConstDecl:
		list("const", n.Name, n.Value)
	case *TypeDecl:
		list("type", n.Name, n.Type)
	case *VarDecl:
		if n.Init == nil {
			list("var", n.Name, n.Type)
		} else {
			list("var", n.Name, n.Type, n.Init)
		}
	case *Param:
		list(n.Name.Name+":", n.Type)
	case *FnDecl:
		xs := []any{n.Name}
		for _, p := range n.Params {
			xs = append(xs, p)
		}
		list("fn", append(xs, n.Result, n.Body)...)
	case *AgentDecl:
		xs := []any{n.Name}
		for _, p := range n.Params {
			xs = append(xs, p)
		}
		xs = append(xs, n.Result)
		if n.Assume != nil {
			xs = append(xs, "assume", n.Assume)
		}
		list("agent", xs...)
	case *ProcessDecl:
		xs := []any{n.Name}
		if n.Index != nil {
			xs = append(xs, n.Index)
		}
		for _, m := range n.Members {
			xs = append(xs, m)
		}
		list("process", xs...)
	case *ActionDecl:
		if n.Guard != nil {
			list("action", n.Name, "when", n.Guard, n.Body)
		} else {
			list("action", n.Name, n.Body)
		}
	case *InitDecl:
		list("init", n.Body)
	case *InvariantDecl:
		list("invariant", n.Name, n.Expr)
	case *PropertyDecl:
		list("property", n.Name, n.Formula)
	case *FairnessDecl:
		kind := "weak"
		if n.Strong {
			kind = "strong"
		}
		if n.Action != nil {
			list("fairness", kind, n.Process, n.Action)
		} else {
			list("fairness", kind, n.Process)
		}
	case *TerminalDecl:
		list("terminal", n.Expr)

	case *NamedType:
		b.WriteString(n.Name)
	case *BoolType:
		b.WriteString("bool")
	case *RangeType:
		list("..", n.Lo, n.Hi)
	case *EnumType:
		xs := []any{}
		for _, m := range n.Members {
			xs = append(xs, m)
		}
		list("enum", xs...)
	case *SymmetricType:
		list("symmetric", n.N)
	case *ArrayType:
		list("array", n.Index, n.Elem)
	case *RecordType:
		xs := []any{}
		for _, f := range n.Fields {
			xs = append(xs, f)
		}
		list("record-type", xs...)
	case *SetType:
		list("set-of", n.Elem)
	case *SeqType:
		if n.Chan {
			list("chan-of", n.Cap, n.Elem)
		} else {
			list("seq-of", n.Cap, n.Elem)
		}

	case *IdentExpr:
		b.WriteString(n.Name)
	case *IntLit:
		w("%d", n.Value)
	case *BoolLit:
		w("%t", n.Value)
	case *UnaryExpr:
		list(n.Op.String(), n.X)
	case *BinaryExpr:
		list(n.Op.String(), n.X, n.Y)
	case *IndexExpr:
		list("index", n.X, n.Index)
	case *SelectorExpr:
		list(".", n.X, n.Field)
	case *CallExpr:
		xs := []any{n.Fn}
		for _, a := range n.Args {
			xs = append(xs, a)
		}
		list("call", xs...)
	case *AskExpr:
		xs := []any{n.Agent}
		for _, a := range n.Args {
			xs = append(xs, a)
		}
		list("ask", xs...)
	case *CondExpr:
		list("if", n.Cond, n.Then, n.Else)
	case *QuantExpr:
		list(n.Kind.String(), n.Var, n.Domain, n.Body)
	case *SetLit:
		xs := []any{}
		for _, e := range n.Elems {
			xs = append(xs, e)
		}
		list("set", xs...)
	case *ArrayLit:
		xs := []any{}
		for _, e := range n.Elems {
			xs = append(xs, e)
		}
		list("array", xs...)
	case *ArrayComp:
		list("array-of", n.Var, n.Domain, n.Body)
	case *RecordLit:
		xs := []any{}
		for _, f := range n.Fields {
			xs = append(xs, f)
		}
		list("record", xs...)
	case *FieldInit:
		list(n.Name.Name+":", n.Value)
	case *ParenExpr:
		list("paren", n.X)

	case *Block:
		xs := []any{}
		for _, s := range n.Stmts {
			xs = append(xs, s)
		}
		list("block", xs...)
	case *AssignStmt:
		list(n.Op.String(), n.Target, n.Value)
	case *LetStmt:
		list("let", n.Name, n.Value)
	case *ChooseStmt:
		if n.Where != nil {
			list("choose", n.Var, n.Domain, "where", n.Where, n.Body)
		} else {
			list("choose", n.Var, n.Domain, n.Body)
		}
	case *ForStmt:
		list("for", n.Var, n.Domain, n.Body)
	case *IfStmt:
		if n.Else != nil {
			list("if", n.Cond, n.Then, n.Else)
		} else {
			list("if", n.Cond, n.Then)
		}
	case *MatchStmt:
		xs := []any{n.X}
		for _, c := range n.Cases {
			xs = append(xs, c)
		}
		list("match", xs...)
	case *MatchCase:
		xs := []any{}
		if n.Values == nil {
			xs = append(xs, "else")
		}
		for _, v := range n.Values {
			xs = append(xs, v)
		}
		list("case", append(xs, n.Body)...)
	case *AssertStmt:
		list("assert", n.Cond, strconv.Quote(n.Msg))
	case *SkipStmt:
		b.WriteString("skip")
	default:
		w("?%T", n)
	}
}

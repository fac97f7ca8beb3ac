package spec

import (
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// exprString prints an expression for messages.
func exprString(e syntax.Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	s := b.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func writeExpr(b *strings.Builder, e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		b.WriteByte('(')
		writeExpr(b, e.X)
		b.WriteByte(')')
	case *syntax.IntLit:
		if e.Huge {
			b.WriteString(e.Text)
			break
		}
		b.WriteString(strconv.FormatInt(e.Value, 10))
	case *syntax.BoolLit:
		b.WriteString(strconv.FormatBool(e.Value))
	case *syntax.IdentExpr:
		b.WriteString(e.Name)
	case *syntax.UnaryExpr:
		b.WriteString(e.Op.String())
		if e.Op != syntax.Neg {
			b.WriteByte(' ')
		}
		writeExpr(b, e.X)
	case *syntax.BinaryExpr:
		writeExpr(b, e.X)
		b.WriteString(" " + e.Op.String() + " ")
		writeExpr(b, e.Y)
	case *syntax.IndexExpr:
		writeExpr(b, e.X)
		b.WriteByte('[')
		writeExpr(b, e.Index)
		b.WriteByte(']')
	case *syntax.SelectorExpr:
		writeExpr(b, e.X)
		b.WriteString("." + e.Field.Name)
	case *syntax.CallExpr:
		b.WriteString(e.Fn.Name)
		writeArgs(b, e.Args)
	case *syntax.AskExpr:
		b.WriteString("ask " + e.Agent.Name)
		writeArgs(b, e.Args)
	case *syntax.CondExpr:
		b.WriteString("if ")
		writeExpr(b, e.Cond)
		b.WriteString(" then ")
		writeExpr(b, e.Then)
		b.WriteString(" else ")
		writeExpr(b, e.Else)
	case *syntax.QuantExpr:
		b.WriteString(e.Kind.String() + " " + e.Var.Name + " in ")
		writeType(b, e.Domain)
		b.WriteString(": ")
		writeExpr(b, e.Body)
	case *syntax.ArrayLit:
		b.WriteByte('[')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, x)
		}
		b.WriteByte(']')
	case *syntax.ArrayComp:
		b.WriteString("[" + e.Var.Name + " in ")
		writeType(b, e.Domain)
		b.WriteString(": ")
		writeExpr(b, e.Body)
		b.WriteByte(']')
	case *syntax.SetLit:
		b.WriteByte('{')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, x)
		}
		b.WriteByte('}')
	case *syntax.RecordLit:
		b.WriteString("record {")
		for i, f := range e.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(" " + f.Name.Name + ": ")
			writeExpr(b, f.Value)
		}
		b.WriteString(" }")
	default:
		b.WriteString("?")
	}
}

func writeArgs(b *strings.Builder, args []syntax.Expr) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, a)
	}
	b.WriteByte(')')
}

func writeType(b *strings.Builder, t syntax.TypeExpr) {
	switch t := t.(type) {
	case *syntax.NamedType:
		b.WriteString(t.Name)
	case *syntax.BoolType:
		b.WriteString("bool")
	case *syntax.RangeType:
		writeExpr(b, t.Lo)
		b.WriteString("..")
		writeExpr(b, t.Hi)
	case *syntax.EnumType:
		b.WriteByte('{')
		for i, m := range t.Members {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(m.Name)
		}
		b.WriteByte('}')
	case *syntax.SymmetricType:
		b.WriteString("symmetric ")
		writeExpr(b, t.N)
	case *syntax.ArrayType:
		b.WriteByte('[')
		writeType(b, t.Index)
		b.WriteByte(']')
		writeType(b, t.Elem)
	case *syntax.RecordType:
		b.WriteString("record { ... }")
	case *syntax.SetType:
		b.WriteString("set of ")
		writeType(b, t.Elem)
	default:
		b.WriteString("?")
	}
}

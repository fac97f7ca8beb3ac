package syntax

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPositions walks the trees of the test specs and checks that every
// node's position is that of its first token, that BinaryExpr.OpPos is
// its operator's, that End positions hold the closing delimiter, and that
// Line and Col agree with Offset.
func TestPositions(t *testing.T) {
	for _, path := range specFiles(t, false) {
		t.Run(path, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(path, src)
			if err != nil {
				t.Fatal(err)
			}
			c := &posChecker{t: t, src: string(src), path: path}
			c.walk(reflect.ValueOf(f))
			if c.nodes < 20 {
				t.Errorf("checked only %d nodes", c.nodes)
			}
		})
	}
}

type posChecker struct {
	t     *testing.T
	src   string
	path  string
	nodes int
}

// at checks that pos is valid and that the source at pos starts with tok.
func (c *posChecker) at(node any, what string, pos Position, tok string) {
	c.t.Helper()
	if pos.Filename != c.path || pos.Offset < 0 || pos.Offset > len(c.src) {
		c.t.Errorf("%T %s: bad position %+v", node, what, pos)
		return
	}
	line := 1 + strings.Count(c.src[:pos.Offset], "\n")
	col := 1 + utf8.RuneCountInString(c.src[strings.LastIndexByte(c.src[:pos.Offset], '\n')+1:pos.Offset])
	if pos.Line != line || pos.Col != col {
		c.t.Errorf("%T %s: position %d:%d, offset says %d:%d", node, what, pos.Line, pos.Col, line, col)
	}
	if !strings.HasPrefix(c.src[pos.Offset:], tok) {
		end := min(pos.Offset+20, len(c.src))
		c.t.Errorf("%T %s at %s: source %q does not start with %q", node, what, pos, c.src[pos.Offset:end], tok)
	}
}

func (c *posChecker) check(n any) {
	c.nodes++
	switch n := n.(type) {
	case *File:
		c.at(n, "name", n.NamePos, n.Name)
	case *Comment:
		c.at(n, "pos", n.Pos, n.Text)
	case *Ident:
		c.at(n, "pos", n.Pos, n.Name)
	case *ConstDecl:
		c.at(n, "pos", n.Pos, "const")
	case *TypeDecl:
		c.at(n, "pos", n.Pos, "type")
	case *VarDecl:
		c.at(n, "pos", n.Pos, "var")
	case *Param:
		c.at(n, "pos", n.Pos, n.Name.Name)
	case *FnDecl:
		c.at(n, "pos", n.Pos, "fn")
	case *AgentDecl:
		c.at(n, "pos", n.Pos, "agent")
		c.at(n, "params", n.ParamsPos, "(")
	case *ProcessDecl:
		c.at(n, "pos", n.Pos, "process")
		c.at(n, "end", n.End, "}")
	case *ActionDecl:
		c.at(n, "pos", n.Pos, "action")
	case *InitDecl:
		c.at(n, "pos", n.Pos, "init")
	case *InvariantDecl:
		c.at(n, "pos", n.Pos, "invariant")
	case *PropertyDecl:
		c.at(n, "pos", n.Pos, "property")
	case *FairnessDecl:
		c.at(n, "pos", n.Pos, "fairness")
	case *TerminalDecl:
		c.at(n, "pos", n.Pos, "terminal")
	case *NamedType:
		c.at(n, "pos", n.Pos, n.Name)
	case *BoolType:
		c.at(n, "pos", n.Pos, "bool")
	case *RangeType:
		c.at(n, "pos", n.Pos, c.src[n.Lo.Position().Offset:][:1])
	case *EnumType:
		c.at(n, "pos", n.Pos, "{")
		c.at(n, "end", n.End, "}")
	case *SymmetricType:
		c.at(n, "pos", n.Pos, "symmetric")
	case *ArrayType:
		c.at(n, "pos", n.Pos, "[")
	case *RecordType:
		c.at(n, "pos", n.Pos, "record")
		c.at(n, "end", n.End, "}")
	case *SetType:
		c.at(n, "pos", n.Pos, "set")
	case *SeqType:
		if n.Chan {
			c.at(n, "pos", n.Pos, "chan")
		} else {
			c.at(n, "pos", n.Pos, "seq")
		}
	case *IdentExpr:
		c.at(n, "pos", n.Pos, n.Name)
	case *IntLit:
		c.at(n, "pos", n.Pos, n.Text)
	case *BoolLit:
		c.at(n, "pos", n.Pos, map[bool]string{true: "true", false: "false"}[n.Value])
	case *UnaryExpr:
		c.at(n, "pos", n.Pos, n.Op.String())
	case *BinaryExpr:
		if n.Pos != n.X.Position() {
			c.t.Errorf("BinaryExpr at %s: X at %s", n.Pos, n.X.Position())
		}
		c.at(n, "op", n.OpPos, n.Op.String())
	case *IndexExpr:
		if n.Pos != n.X.Position() {
			c.t.Errorf("IndexExpr at %s: X at %s", n.Pos, n.X.Position())
		}
		c.at(n, "end", n.End, "]")
	case *SelectorExpr:
		if n.Pos != n.X.Position() {
			c.t.Errorf("SelectorExpr at %s: X at %s", n.Pos, n.X.Position())
		}
	case *CallExpr:
		c.at(n, "pos", n.Pos, n.Fn.Name)
		c.at(n, "end", n.End, ")")
	case *AskExpr:
		c.at(n, "pos", n.Pos, "ask")
		c.at(n, "end", n.End, ")")
	case *CondExpr:
		c.at(n, "pos", n.Pos, "if")
	case *QuantExpr:
		c.at(n, "pos", n.Pos, n.Kind.String())
	case *SetLit:
		c.at(n, "pos", n.Pos, "{")
		c.at(n, "end", n.End, "}")
	case *ArrayLit:
		c.at(n, "pos", n.Pos, "[")
		c.at(n, "end", n.End, "]")
	case *ArrayComp:
		c.at(n, "pos", n.Pos, "[")
		c.at(n, "end", n.End, "]")
	case *RecordLit:
		c.at(n, "pos", n.Pos, "record")
		c.at(n, "end", n.End, "}")
	case *FieldInit:
		c.at(n, "pos", n.Pos, n.Name.Name)
	case *ParenExpr:
		c.at(n, "pos", n.Pos, "(")
		c.at(n, "end", n.End, ")")
	case *Block:
		c.at(n, "pos", n.Pos, "{")
		c.at(n, "end", n.End, "}")
	case *AssignStmt:
		if n.Pos != n.Target.Position() {
			c.t.Errorf("AssignStmt at %s: target at %s", n.Pos, n.Target.Position())
		}
	case *LetStmt:
		c.at(n, "pos", n.Pos, "let")
	case *ChooseStmt:
		c.at(n, "pos", n.Pos, "choose")
	case *ForStmt:
		c.at(n, "pos", n.Pos, "for")
	case *IfStmt:
		c.at(n, "pos", n.Pos, "if")
	case *MatchStmt:
		c.at(n, "pos", n.Pos, "match")
		c.at(n, "end", n.End, "}")
	case *MatchCase:
		if n.Values == nil {
			c.at(n, "pos", n.Pos, "else")
		} else if n.Pos != n.Values[0].Position() {
			c.t.Errorf("MatchCase at %s: first value at %s", n.Pos, n.Values[0].Position())
		}
	case *AssertStmt:
		c.at(n, "pos", n.Pos, "assert")
	case *SkipStmt:
		c.at(n, "pos", n.Pos, "skip")
	case *RateDecl:
		c.at(n, "pos", n.Pos, "rate")
		c.at(n, "end", n.End, "}")
	case *RateAnswer:
		if n.Pos != n.Value.Position() {
			c.t.Errorf("RateAnswer at %s: value at %s", n.Pos, n.Value.Position())
		}
	case *ProbabilityDecl:
		c.at(n, "pos", n.Pos, "probability")
	case *CostDecl:
		c.at(n, "pos", n.Pos, "cost")
		c.at(n, "end", n.End, "}")
	case *CostItem:
		if n.Action != nil && n.Pos != n.Action.Pos {
			c.t.Errorf("CostItem at %s: action at %s", n.Pos, n.Action.Pos)
		}
		if n.When != nil {
			c.at(n, "pos", n.Pos, "when")
		}
	case *ExpectedDecl:
		c.at(n, "pos", n.Pos, "expected")
	case *ProbBound:
		c.at(n, "pos", n.Pos, "bound")
	default:
		c.t.Errorf("unchecked node %T", n)
	}
}

// walk checks every node reachable from v.
func (c *posChecker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			c.walk(v.Elem())
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Elem().Kind() == reflect.Struct && v.Elem().Type() != reflect.TypeOf(Position{}) {
			c.check(v.Interface())
		}
		c.walk(v.Elem())
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			c.walk(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(Ident{}) {
			id := v.Interface().(Ident)
			c.check(&id)
			return
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Name == "Members" && v.Type() == reflect.TypeOf(ProcessDecl{}) {
				continue // the same nodes as Vars and Actions
			}
			c.walk(v.Field(i))
		}
	}
}

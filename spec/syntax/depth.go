package syntax

import (
	"fmt"
	"reflect"

	"github.com/alecthomas/participle/v2/lexer"
)

// MaxExprHeight is the largest height of an expression tree: the number
// of operators on its longest path from the root to a leaf (a + b + c has
// height 2; a name or a literal, 0), types inside it and parentheses
// included. A left-associative chain such as a + b + c is parsed without
// recursion but builds a tree as deep as it is long, and every later pass
// (checking, lowering, compiling, printing) recurses over the tree, so
// Parse refuses a taller one with the position of the operator at which
// the limit is passed, rather than let the stack overflow. The checker
// applies the same bound after fn calls are inlined.
const MaxExprHeight = 10000

// heightError is the error of an expression taller than MaxExprHeight.
func heightError() string {
	return fmt.Sprintf("expression too deep: more than %d levels of operators", MaxExprHeight)
}

// tooTall returns the position at which the tree under root (an [Expr] or
// a [TypeExpr]) passes [MaxExprHeight]: the operator, or else the first
// token, of the leftmost lowest node whose height exceeds it. It works
// without recursion, so that it is safe on any tree.
func tooTall(root any) (Position, bool) {
	type item struct {
		n      any
		parent int
	}
	// Pre-order, then heights in reverse: every child follows its parent.
	nodes := []item{{root, -1}}
	var kids []any
	for i := 0; i < len(nodes); i++ {
		kids = appendChildren(kids[:0], nodes[i].n)
		for _, c := range kids {
			nodes = append(nodes, item{c, i})
		}
	}
	if len(nodes) <= MaxExprHeight+1 {
		return Position{}, false
	}
	height := make([]int32, len(nodes))
	var at Position
	found := false
	for i := len(nodes) - 1; i >= 0; i-- {
		// height[i] is final here: 0 for a leaf, else one more than
		// its tallest child.
		if height[i] == MaxExprHeight+1 {
			p := opPosition(nodes[i].n)
			if !found || p.Offset < at.Offset {
				at, found = p, true
			}
		}
		if p := nodes[i].parent; p >= 0 && height[i]+1 > height[p] {
			height[p] = height[i] + 1
		}
	}
	return at, found
}

// opPosition is the position of n's operator, or of its first token.
func opPosition(n any) Position {
	switch n := n.(type) {
	case *BinaryExpr:
		return n.OpPos
	case Expr:
		return n.Position()
	case TypeExpr:
		return n.Position()
	}
	return Position{}
}

// appendChildren appends the expressions and types directly inside the
// expression or type n to dst.
func appendChildren(dst []any, n any) []any {
	add := func(xs ...any) {
		for _, x := range xs {
			if v := reflect.ValueOf(x); x != nil && (v.Kind() != reflect.Pointer || !v.IsNil()) {
				dst = append(dst, x)
			}
		}
	}
	switch n := n.(type) {
	case *IdentExpr, *IntLit, *BoolLit, *NamedType, *EnumType, *badExpr:
	case *UnaryExpr:
		add(n.X)
	case *BinaryExpr:
		add(n.X, n.Y)
	case *IndexExpr:
		add(n.X, n.Index)
	case *SelectorExpr:
		add(n.X)
	case *CallExpr:
		for _, a := range n.Args {
			add(a)
		}
	case *AskExpr:
		for _, a := range n.Args {
			add(a)
		}
	case *CondExpr:
		add(n.Cond, n.Then, n.Else)
	case *QuantExpr:
		add(n.Domain, n.Body)
	case *SetLit:
		for _, a := range n.Elems {
			add(a)
		}
	case *RecordLit:
		for _, f := range n.Fields {
			add(f.Value)
		}
	case *ArrayLit:
		for _, a := range n.Elems {
			add(a)
		}
	case *ArrayComp:
		add(n.Domain, n.Body)
	case *ParenExpr:
		add(n.X)
	case *RangeType:
		add(n.Lo, n.Hi)
	case *SymmetricType:
		add(n.N)
	case *ArrayType:
		add(n.Index, n.Elem)
	case *RecordType:
		for _, f := range n.Fields {
			add(f.Type)
		}
	case *SetType:
		add(n.Elem)
	default:
		// A node kind added later: find its children by reflection, so
		// that no kind escapes the bound.
		v := reflect.Indirect(reflect.ValueOf(n))
		if v.Kind() != reflect.Struct {
			break
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			switch {
			case f.Kind() == reflect.Interface && !f.IsNil() && f.CanInterface():
				add(f.Interface())
			case f.Kind() == reflect.Slice && f.CanInterface():
				for j := 0; j < f.Len(); j++ {
					if e := f.Index(j); e.Kind() == reflect.Interface && !e.IsNil() {
						add(e.Interface())
					}
				}
			}
		}
	}
	return dst
}

// chainCounter spots, while the scanner runs, a flat chain that the
// parser will certainly refuse, so that the scanner can stop there
// instead of turning the rest of a huge file into tokens. At each bracket
// depth it follows runs of the form `p* a op p* a op ...`, where p is a
// prefix `not` or `-`, op a left-associative binary operator (or, and,
// + - union minus, * / % intersect) and a an operand: a name or a literal,
// a parenthesized expression or set literal, each maybe followed by calls,
// indexes and field selections (what is inside brackets is followed at
// its own depth). Within one run, the operators of one precedence level
// that no looser operator separates are all read by one loop of the
// parser, whose tree grows by one level per operator: when there are
// more than MaxExprHeight of them, the parser fails at the latest at the
// last one. Any other token ends the run, which only makes the count
// smaller. It also stops at a bracket nested more than maxNesting deep,
// which tooDeep refuses at the latest there.
type chainCounter struct {
	runs  []chainRun // the run at each open bracket depth, outermost first
	depth int        // brackets open
}

// chainRun is the state of a run at one bracket depth.
type chainRun struct {
	state  uint8            // runNone, runOperand, runAfter or runField
	opened bool             // the bracket of this depth continues an operand of the depth outside
	counts [PrecMul + 1]int // per level: operators since a looser one
}

// chainRun states.
const (
	runNone    = iota // no run
	runOperand        // after an operator or prefix: an operand comes next
	runAfter          // after an operand: an operator or a postfix comes next
	runField          // after '.': a field name comes next
)

// next takes the next token and reports whether the parser will fail at
// or before it.
func (c *chainCounter) next(t *lexer.Token) bool {
	if c.runs == nil {
		c.runs = []chainRun{{}}
	}
	r := &c.runs[len(c.runs)-1]
	atomic := t.Type == tokIdent || t.Type == tokInt || t.Type == tokKeyword && (t.Value == "true" || t.Value == "false")
	if t.Type == tokPunct {
		switch t.Value {
		case "(", "[", "{":
			// A group that is an operand: (e) or a set literal where an
			// operand is due ('{' elsewhere may open a block), a call or
			// an index after one.
			opened := r.state == runOperand && t.Value != "[" || r.state == runNone && t.Value == "(" ||
				r.state == runAfter && t.Value != "{"
			if !opened {
				*r = chainRun{opened: r.opened}
			}
			c.depth++
			c.runs = append(c.runs, chainRun{opened: opened})
			return c.depth > maxNesting
		case ")", "]", "}":
			if c.depth == 0 {
				*r = chainRun{opened: r.opened}
				return false
			}
			c.depth--
			opened := r.opened
			c.runs = c.runs[:len(c.runs)-1]
			r = &c.runs[len(c.runs)-1]
			if opened {
				r.state = runAfter
			} else {
				*r = chainRun{opened: r.opened}
			}
			return false
		}
	}
	switch r.state {
	case runAfter:
		if info, ok := binaryOp(t); ok && !info.right && info.prec != PrecCmp {
			r.counts[info.prec]++
			clear(r.counts[info.prec+1:]) // a looser operator ends the tighter loops
			r.state = runOperand
			return r.counts[info.prec] > MaxExprHeight
		}
		if t.Type == tokPunct && t.Value == "." {
			r.state = runField
			return false
		}
	case runField:
		if t.Type == tokIdent {
			r.state = runAfter
			return false
		}
	case runOperand:
		if t.Type == tokKeyword && t.Value == "not" || t.Type == tokPunct && t.Value == "-" {
			return false
		}
		if atomic {
			r.state = runAfter
			return false
		}
	}
	// The run, if any, ends here; a name or a literal starts the next one.
	*r = chainRun{opened: r.opened}
	if atomic {
		r.state = runAfter
	}
	return false
}

package spec

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// This file checks and lowers the declarations of the quantitative
// extension (docs/language.md, "Probabilities"): rates on agent answers
// and probability queries. The quant package reads them from
// Model.Rates and Model.Queries; every other engine ignores them.

// Rate is a rate declaration: when agent Agent is asked with arguments
// for which When holds, it answers Answers[i].Value with probability
// Answers[i].Prob. The probabilities sum to 1; a value not listed has
// probability 0.
type Rate struct {
	Agent   int   // index into Model.Agents
	When    *Expr // over the agent's frame (its parameters); nil: always
	Answers []RateAnswer
	Pos     Position
}

// RateAnswer is one answer of a [Rate] and its probability.
type RateAnswer struct {
	Value []int64  // the answer's scalars (Agent.Result.Width of them)
	Prob  *big.Rat // k/n
	// Count is set for a measured count `k of n`: Prob is then the point
	// estimate k/n, and K and N the count.
	Count bool
	K, N  int64
	Pos   Position
}

// QueryOpt says over which resolution of the nondeterminism a
// probability query is computed.
type QueryOpt uint8

// The options of a [Query].
const (
	QueryBoth QueryOpt = iota // no min or max written: both are reported
	QueryMin
	QueryMax
)

func (o QueryOpt) String() string { return [...]string{"", "min", "max"}[o] }

// Query is a probability query, `probability Name: (min|max)? Formula
// (within k)? (bound op p)?`: the probability that a run satisfies
// Left until Right (Left is nil for `eventually Right`), within Steps
// steps when Steps >= 0.
type Query struct {
	Name  string
	Opt   QueryOpt
	Left  *Expr // a state predicate; nil: true
	Right *Expr // a state predicate
	Steps int64 // -1: unbounded
	Bound *QueryBound
	Pos   Position
	// Formula is the formula as written, reprinted (`eventually d == 6`).
	Formula string
}

// QueryBound is the bound of a [Query]: the query holds when the
// probability p satisfies p Op Value.
type QueryBound struct {
	Op    string // "<=", "<", ">=" or ">"
	Value *big.Rat
	Text  string // as written
	Pos   Position
}

// Holds reports whether v satisfies the bound.
func (b *QueryBound) Holds(v *big.Rat) bool {
	c := v.Cmp(b.Value)
	switch b.Op {
	case "<=":
		return c <= 0
	case "<":
		return c < 0
	case ">=":
		return c >= 0
	}
	return c > 0
}

// Upper reports whether the bound is an upper bound (<= or <), which
// every scheduler must keep to: the maximum is compared with it; a lower
// bound is compared with the minimum.
func (b *QueryBound) Upper() bool { return b.Op[0] == '<' }

// Cost is a cost declaration, `cost Name { ... }`: each step of the
// MDP costs the sum of the Values of the items that apply to it.
type Cost struct {
	Name  string
	Items []CostItem
	Pos   Position
}

// CostItem is one item of a [Cost]: with Actions set, each step of one
// of those actions (indexes into Model.Actions: every instance of the
// action named) costs Value; else each step taken from a state where When
// holds.
type CostItem struct {
	Actions []int
	When    *Expr // a state predicate; nil when Actions is set
	Value   *big.Rat
	Pos     Position
}

// Expectation is an expected-cost query, `expected Name: (min|max)?
// Cost until Target (bound op v)?`: the expected cost accumulated until
// the first state where Target holds.
type Expectation struct {
	Name   string
	Opt    QueryOpt
	Cost   int // index into Model.Costs
	Target *Expr
	Bound  *QueryBound
	Pos    Position
	// Formula is the formula as written, reprinted.
	Formula string
}

// Applies reports whether rate r applies to the arguments args (the
// scalars of the agent's parameters, in order) of agent a.
func (r *Rate) Applies(a *Agent, args []int64) (bool, error) {
	if r.When == nil {
		return true, nil
	}
	ev := &frameEval{frame: make([]int64, max(a.Frame, a.ResultSlot+a.Result.Width)), steps: 1 << 20}
	k := 0
	for i, p := range a.Params {
		for j := 0; j < p.Width; j++ {
			if k >= len(args) {
				return false, fmt.Errorf("rate of agent %s: %d argument scalars, want more", a.Name, len(args))
			}
			ev.frame[a.ParamSlots[i]+j] = args[k]
			k++
		}
	}
	v, err := ev.scalar(r.When)
	if err != nil {
		return false, fmt.Errorf("%s: when of rate of agent %s: %v", r.Pos, a.Name, err)
	}
	return v != 0, nil
}

// lowerQuant checks and lowers the rate and probability declarations.
func (c *checker) lowerQuant() {
	seen := map[string]Position{}
	for _, d := range c.file.Decls {
		switch d := d.(type) {
		case *syntax.RateDecl:
			c.lowerRate(d)
		case *syntax.ProbabilityDecl:
			if prev, ok := seen[d.Name.Name]; ok {
				c.errorNotes(d.Name.Pos, []syntax.Note{note(prev, "%s declared here", d.Name.Name)}, "probability %s redeclared", d.Name.Name)
				continue
			}
			seen[d.Name.Name] = d.Name.Pos
			c.lowerQuery(d)
		}
	}
	costs := map[string]int{}
	for _, d := range c.file.Decls {
		if d, ok := d.(*syntax.CostDecl); ok {
			if i, ok := costs[d.Name.Name]; ok {
				c.errorNotes(d.Name.Pos, []syntax.Note{note(c.model.Costs[i].Pos, "%s declared here", d.Name.Name)}, "cost %s redeclared", d.Name.Name)
				continue
			}
			costs[d.Name.Name] = len(c.model.Costs)
			c.lowerCost(d)
		}
	}
	for _, d := range c.file.Decls {
		if d, ok := d.(*syntax.ExpectedDecl); ok {
			if prev, ok := seen[d.Name.Name]; ok {
				c.errorNotes(d.Name.Pos, []syntax.Note{note(prev, "%s declared here", d.Name.Name)}, "query %s redeclared", d.Name.Name)
				continue
			}
			seen[d.Name.Name] = d.Name.Pos
			c.lowerExpectation(d, costs)
		}
	}
}

func (c *checker) lowerCost(d *syntax.CostDecl) {
	k := &Cost{Name: d.Name.Name, Pos: d.Pos}
	where := "cost " + d.Name.Name
	for _, it := range d.Items {
		if it.Den != nil && (it.Den.Huge || it.Den.Value == 0) || it.Num.Huge {
			c.errorf(it.Num.Pos, "%s: invalid value: want k or k/n with n > 0", where)
			continue
		}
		v := big.NewRat(it.Num.Value, 1)
		if it.Den != nil {
			v.SetFrac64(it.Num.Value, it.Den.Value)
		}
		ci := CostItem{Value: v, Pos: it.Pos}
		if it.Action != nil {
			for i, a := range c.model.Actions {
				if a.Short == it.Action.Name {
					ci.Actions = append(ci.Actions, i)
				}
			}
			if len(ci.Actions) == 0 {
				c.errorf(it.Action.Pos, "%s: undefined action: %s", where, it.Action.Name)
				continue
			}
		} else {
			c.unit()
			ci.When = c.boolExpr(it.When, &env{kind: uState, scope: c.global, where: where}, where)
			c.endUnit()
			if isInvalid(ci.When.Type) {
				continue
			}
		}
		k.Items = append(k.Items, ci)
	}
	c.model.Costs = append(c.model.Costs, k)
}

func (c *checker) lowerExpectation(d *syntax.ExpectedDecl, costs map[string]int) {
	e := &Expectation{Name: d.Name.Name, Pos: d.Pos, Formula: syntax.FormatExpr(d.Formula, nil)}
	switch d.Opt {
	case "min":
		e.Opt = QueryMin
	case "max":
		e.Opt = QueryMax
	}
	where := "expected " + d.Name.Name
	f := d.Formula
	for {
		p, ok := f.(*syntax.ParenExpr)
		if !ok {
			break
		}
		f = p.X
	}
	b, ok := f.(*syntax.BinaryExpr)
	var name *syntax.IdentExpr
	if ok && b.Op == syntax.Until {
		name, _ = b.X.(*syntax.IdentExpr)
	}
	if name == nil {
		c.errorf(f.Position(), "%s: an expected-cost query is `Cost until c`, with Cost the name of a cost", where)
		return
	}
	i, ok := costs[name.Name]
	if !ok {
		c.errorf(name.Pos, "%s: undefined cost: %s", where, name.Name)
		return
	}
	e.Cost = i
	c.unit()
	e.Target = c.boolExpr(b.Y, &env{kind: uState, scope: c.global, where: where}, where)
	c.endUnit()
	if isInvalid(e.Target.Type) {
		return
	}
	if bd := d.Bound; bd != nil {
		v, ok := new(big.Rat).SetString(bd.Value)
		if !ok || v.Sign() < 0 {
			c.errorf(bd.Pos, "%s: bound %s is not a cost", where, bd.Value)
			return
		}
		e.Bound = &QueryBound{Op: bd.Op.String(), Value: v, Text: strings.TrimSpace(bd.Value), Pos: bd.Pos}
	}
	c.model.Expectations = append(c.model.Expectations, e)
}

func (c *checker) lowerRate(d *syntax.RateDecl) {
	o := c.global.names[d.Agent.Name]
	if o == nil || o.kind != objAgent {
		c.errorf(d.Agent.Pos, "undefined agent: %s%s", d.Agent.Name, didYouMean(c.suggestKind(d.Agent.Name, objAgent)))
		return
	}
	ai := o.agent
	a := c.model.Agents[ai.index]
	r := &Rate{Agent: ai.index, Pos: d.Pos}
	if d.When != nil {
		// The condition sees what the agent sees: its parameters,
		// constants and fns that read no state (as assume does).
		c.frameTop, c.frameMax = a.Frame, a.Frame
		sc := newScope(c.global)
		for i, p := range ai.decl.Params {
			po := &object{kind: objBound, name: p.Name.Name, pos: p.Name.Pos, typ: a.Params[i], what: "parameter", used: true, slot: a.ParamSlots[i]}
			c.declare(sc, po)
		}
		where := "when of rate of agent " + a.Name
		x := c.boolExpr(d.When, &env{kind: uAssume, scope: sc, agent: ai, where: where}, where)
		if c.frameMax > a.Frame {
			a.Frame = c.frameMax
		}
		c.frameTop, c.frameMax = 0, 0
		if isInvalid(x.Type) {
			return
		}
		if !(x.Op == OpConst && x.Val == 1) {
			r.When = x
		}
	}
	if a.Result.Width != 1 {
		c.errorf(d.Pos, "rate of agent %s: answers of type %s cannot have rates yet (a scalar type only)", a.Name, typeString(a.Result))
		return
	}
	sum := new(big.Rat)
	values := map[int64]Position{}
	var den int64
	for _, ans := range d.Answers {
		x := c.expr(ans.Value, c.globalEnv(), a.Result)
		if isInvalid(x.Type) {
			continue
		}
		x = Fold(x)
		if x.Op != OpConst || !c.assignable(x, a.Result, ans.Value, "answer of agent "+a.Name) {
			if x.Op != OpConst {
				c.errorf(ans.Pos, "answer in a rate must be a constant of type %s", typeString(a.Result))
			}
			continue
		}
		if prev, ok := values[x.Val]; ok {
			c.errorNotes(ans.Pos, []syntax.Note{note(prev, "first given here")}, "answer given twice in the rate of agent %s", a.Name)
			continue
		}
		values[x.Val] = ans.Pos
		k, n := ans.Num, ans.Den
		if k.Huge || n.Huge || n.Value == 0 || k.Value > n.Value {
			c.errorf(k.Pos, "invalid rate %s%s%s: want k/n or k of n with 0 <= k <= n and n > 0", k.Text, map[bool]string{true: " of ", false: "/"}[ans.Count], n.Text)
			continue
		}
		if ans.Count {
			if den != 0 && den != n.Value {
				c.errorf(n.Pos, "counts of one rate must share their total: %d here, %d before", n.Value, den)
				continue
			}
			den = n.Value
		}
		p := big.NewRat(k.Value, n.Value)
		sum.Add(sum, p)
		r.Answers = append(r.Answers, RateAnswer{Value: []int64{x.Val}, Prob: p, Count: ans.Count, K: k.Value, N: n.Value, Pos: ans.Pos})
	}
	if len(r.Answers) == len(d.Answers) && sum.Cmp(big.NewRat(1, 1)) != 0 {
		c.errorf(d.Pos, "rates of agent %s sum to %s, not 1", a.Name, sum.RatString())
		return
	}
	c.model.Rates = append(c.model.Rates, r)
}

func (c *checker) lowerQuery(d *syntax.ProbabilityDecl) {
	q := &Query{Name: d.Name.Name, Steps: -1, Pos: d.Pos, Formula: syntax.FormatExpr(d.Formula, nil)}
	switch d.Opt {
	case "min":
		q.Opt = QueryMin
	case "max":
		q.Opt = QueryMax
	}
	where := "probability " + d.Name.Name
	st := &env{kind: uState, scope: c.global, where: where}
	pred := func(e syntax.Expr) *Expr {
		c.unit()
		x := c.boolExpr(e, st, where)
		c.endUnit()
		return x
	}
	f := d.Formula
	for {
		p, ok := f.(*syntax.ParenExpr)
		if !ok {
			break
		}
		f = p.X
	}
	switch f := f.(type) {
	case *syntax.UnaryExpr:
		if f.Op != syntax.Eventually {
			c.errorf(f.Pos, "%s: a probability query is `eventually c` or `a until b`", where)
			return
		}
		q.Right = pred(f.X)
	case *syntax.BinaryExpr:
		if f.Op != syntax.Until {
			c.errorf(f.Pos, "%s: a probability query is `eventually c` or `a until b`", where)
			return
		}
		q.Left, q.Right = pred(f.X), pred(f.Y)
	default:
		c.errorf(f.Position(), "%s: a probability query is `eventually c` or `a until b`", where)
		return
	}
	if q.Right == nil || isInvalid(q.Right.Type) || q.Left != nil && isInvalid(q.Left.Type) {
		return
	}
	if d.Within != nil {
		if d.Within.Huge {
			c.errorf(d.Within.Pos, "%s: too many steps: %s", where, d.Within.Text)
			return
		}
		q.Steps = d.Within.Value
	}
	if b := d.Bound; b != nil {
		v, ok := new(big.Rat).SetString(b.Value)
		if !ok || v.Sign() < 0 || v.Cmp(big.NewRat(1, 1)) > 0 {
			c.errorf(b.Pos, "%s: bound %s is not a probability", where, b.Value)
			return
		}
		q.Bound = &QueryBound{Op: b.Op.String(), Value: v, Text: strings.TrimSpace(b.Value), Pos: b.Pos}
	}
	c.model.Queries = append(c.model.Queries, q)
}

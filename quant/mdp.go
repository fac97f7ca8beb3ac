package quant

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// An MDP is a finite Markov decision process: in each state the
// scheduler picks one of the state's choices, and the choice's
// distribution picks the next state. States are numbered from 0.
// Its zero value has no states. It is not safe for concurrent
// modification.
type MDP struct {
	// Choices[s] lists the choices of state s; every state has at least
	// one (a state with no enabled action has a self-loop of
	// probability 1).
	Choices [][]Dist
	// Init lists the initial distributions, one of which the scheduler
	// picks (several when the init block branches nondeterministically).
	Init []Dist
	// Actions[s][c] is the action (an index into spec.Model.Actions) of
	// choice c of state s, -1 for the self-loop of a state with no
	// enabled action; nil for an MDP built by hand.
	Actions [][]int
}

// A Dist is a probability distribution over states: probabilities
// summing to 1, at most one entry per state, in increasing order of
// state.
type Dist []Trans

// A Trans is one entry of a [Dist]. Where the probability comes from
// measured counts, Lo and Hi are the ends of the interval their
// confidence intervals allow it (Prob, the point estimate, lies between
// them); they are nil where the probability is exact. A Dist with
// intervals is a choice of an interval MDP: any distribution within the
// intervals (summing to 1) may be taken; [MDP.Vertices] lists the ones
// that matter.
type Trans struct {
	To     int
	Prob   *big.Rat
	Lo, Hi *big.Rat
}

// lo and hi return the ends of t's interval (Prob when exact).
func (t *Trans) lo() *big.Rat {
	if t.Lo != nil {
		return t.Lo
	}
	return t.Prob
}

func (t *Trans) hi() *big.Rat {
	if t.Hi != nil {
		return t.Hi
	}
	return t.Prob
}

// N returns the number of states.
func (m *MDP) N() int { return len(m.Choices) }

// ErrTooLarge is returned when the state space or a step's branching
// passes the limits of [Options].
var ErrTooLarge = errors.New("quant: model too large")

// builder explores the state space of a compiled model.
type builder struct {
	stop    *stopper // the machine's interrupt: the context, the memory budget
	ctx     context.Context
	m       *spec.Model
	p       *machine.Program
	mach    *machine.Machine
	index   map[string]int
	states  [][]uint64
	rates   [][]*spec.Rate // per agent
	opts    Options
	leaves  []leaf
	key     []byte
	choices int
	trans   int
	// boxed is set when some rate is a count: the distributions then
	// carry intervals, from the counts' confidence intervals at level.
	boxed bool
	level *big.Rat
	cp    map[[2]int64][2]*big.Rat
	// record makes the leaves keep their vectors and the options their
	// leaves (for witnesses).
	record bool
	// pinned is the rate whose counts are taken as exact (their point
	// estimates), for the sensitivity; nil: none.
	pinned *spec.Rate
	// slots and packed are the buffers of the canonicalisation
	// (Options.Canon).
	slots  []int64
	packed []uint64
}

// leaf is one branch of an action: its decisions and the state it makes
// (with b.record, its vector too, before canonicalisation).
type leaf struct {
	path []machine.Branch
	to   int
	vec  []uint64
}

// An option is one choice as the flattening makes it: its distribution
// and, with b.record, the leaves it combines, each with its weight (the
// product of the rated probabilities on its path, at the point
// estimates).
type option struct {
	d      Dist
	leaves []wleaf
}

type wleaf struct {
	l *leaf
	w *big.Rat
}

// Build explores the reachable states of p (compiled from m) and returns
// them as an MDP, with the packed vector of each state. An agent answer
// with a rate is a probabilistic branch; everything else (the choice of
// the action, unrated answers, choose) is the scheduler's.
func Build(ctx context.Context, m *spec.Model, p *machine.Program, opts Options) (*MDP, [][]uint64, error) {
	b := newBuilder(ctx, m, p, opts)
	mdp, err := b.build()
	if err != nil {
		return nil, nil, err
	}
	return mdp, b.states, nil
}

func newBuilder(ctx context.Context, m *spec.Model, p *machine.Program, opts Options) *builder {
	b := &builder{ctx: ctx, m: m, p: p, mach: p.NewMachine(), index: map[string]int{}, rates: make([][]*spec.Rate, len(m.Agents)), opts: opts}
	for _, r := range m.Rates {
		b.rates[r.Agent] = append(b.rates[r.Agent], r)
		for _, a := range r.Answers {
			b.boxed = b.boxed || a.Count
		}
	}
	b.level, b.cp = opts.confidence(), map[[2]int64][2]*big.Rat{}
	b.mach.RecordBranches(true)
	b.stop = newStopper(ctx, opts.MemoryBudget)
	b.mach.SetInterrupt(b.stop.stop)
	if opts.Canon != nil {
		b.slots = make([]int64, len(m.Slots))
		b.packed = make([]uint64, p.Words())
	}
	return b
}

// build explores the state space.
func (b *builder) build() (*MDP, error) {
	ctx := b.ctx
	mdp := &MDP{}
	init, err := b.expandInit()
	if err != nil {
		return nil, err
	}
	for _, o := range init {
		mdp.Init = append(mdp.Init, o.d)
	}
	for s := 0; s < len(b.states); s++ {
		if s%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if s%4096 == 0 {
			if err := b.opts.overBudget(fmt.Sprintf("%d states built", len(b.states))); err != nil {
				return nil, err
			}
		}
		if b.opts.MaxStates > 0 && len(b.states) > b.opts.MaxStates {
			return nil, fmt.Errorf("%w: more than %d states", ErrTooLarge, b.opts.MaxStates)
		}
		ops, acts, err := b.expand(b.states[s])
		if err != nil {
			return nil, err
		}
		cs := make([]Dist, len(ops))
		for i := range ops {
			cs[i] = ops[i].d
		}
		if len(cs) == 0 {
			cs = []Dist{{{To: s, Prob: big.NewRat(1, 1)}}}
			acts = []int{-1}
		}
		mdp.Actions = append(mdp.Actions, acts)
		b.choices += len(cs)
		for _, d := range cs {
			b.trans += len(d)
		}
		mdp.Choices = append(mdp.Choices, cs)
	}
	return mdp, nil
}

// expandInit returns the initial distributions as options.
func (b *builder) expandInit() ([]option, error) {
	b.leaves = b.leaves[:0]
	err := b.mach.Init(func(_ int, t machine.State) {
		b.leaves = append(b.leaves, b.leafOf(t))
	})
	if err != nil {
		return nil, b.stop.err(len(b.states), err)
	}
	return b.dists(b.leaves)
}

// expand returns the choices of state vec, in (action, branch) order,
// with the action of each; with b.record, each with the leaves it
// combines.
func (b *builder) expand(vec []uint64) ([]option, []int, error) {
	var cs []option
	var acts []int
	act := -1
	var ierr error
	b.leaves = b.leaves[:0]
	flush := func() error {
		if len(b.leaves) == 0 {
			return nil
		}
		ds, err := b.dists(b.leaves)
		cs = append(cs, ds...)
		for range ds {
			acts = append(acts, act)
		}
		b.leaves = b.leaves[:0]
		return err
	}
	err := b.mach.Successors(vec, func(a, _ int, t machine.State) {
		if a != act {
			if err := flush(); err != nil && ierr == nil {
				ierr = err
			}
			act = a
		}
		b.leaves = append(b.leaves, b.leafOf(t))
	})
	if err != nil {
		return nil, nil, b.stop.err(len(b.states), err)
	}
	if err := flush(); err != nil && ierr == nil {
		ierr = err
	}
	return cs, acts, ierr
}

// leafOf returns the leaf of the branch being visited, which made t.
func (b *builder) leafOf(t machine.State) leaf {
	l := leaf{path: clonePath(b.mach.Branches()), to: b.intern(t)}
	if b.record {
		l.vec = append([]uint64(nil), t...)
	}
	return l
}

func runtimeErr(ctx context.Context, err error) error {
	if errors.Is(err, machine.ErrInterrupted) && ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *machine.ExecError
	if errors.As(err, &ee) {
		return fmt.Errorf("quant: the spec has a %s (wrapcheck check reports it with a trace): %w", ee.Kind, err)
	}
	return err
}

func clonePath(p []machine.Branch) []machine.Branch {
	return append([]machine.Branch(nil), p...)
}

// intern returns the number of state t, adding it when new.
func (b *builder) intern(t machine.State) int {
	if b.opts.Canon != nil {
		b.p.Unpack(b.slots, t)
		b.opts.Canon(b.slots)
		b.p.Pack(b.packed, b.slots)
		t = b.packed
	}
	b.key = b.key[:0]
	for _, w := range t {
		b.key = binary.LittleEndian.AppendUint64(b.key, w)
	}
	if i, ok := b.index[string(b.key)]; ok {
		return i
	}
	i := len(b.states)
	b.index[string(b.key)] = i
	b.states = append(b.states, append([]uint64(nil), t...))
	return i
}

// node is a node of the tree of one action's branches: the leaves share
// the prefixes of their decisions.
type node struct {
	to       int // a leaf: the state made
	leaf     *leaf
	dec      *machine.Branch
	children []*node
}

// dists builds the tree of the leaves of one action (or of init) and
// returns its choices: the distributions the scheduler may pick among,
// having seen the rated answers taken before each of its decisions.
func (b *builder) dists(leaves []leaf) ([]option, error) {
	root := &node{to: -1}
	if b.record {
		// The options keep pointers to the leaves, which the caller
		// reuses.
		leaves = slices.Clone(leaves)
	}
	for li := range leaves {
		l := &leaves[li]
		n := root
		for i := range l.path {
			d := &l.path[i]
			var next *node
			for _, c := range n.children {
				if sameDecision(c.dec, d) {
					next = c
					break
				}
			}
			if next == nil {
				next = &node{to: -1, dec: d}
				n.children = append(n.children, next)
			}
			n = next
		}
		if len(n.children) > 0 || n.to >= 0 && n.to != l.to {
			return nil, fmt.Errorf("wrapcheck internal error: quant: two branches with the same decisions make different states")
		}
		n.to, n.leaf = l.to, l
	}
	return b.flatten(root)
}

func sameDecision(a, b *machine.Branch) bool {
	return a.Agent == b.Agent && equal(a.Args, b.Args) && equal(a.Value, b.Value)
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// flatten returns the distributions of the subtree n (with b.record,
// each with its leaves).
func (b *builder) flatten(n *node) ([]option, error) {
	if len(n.children) == 0 {
		o := option{d: Dist{{To: n.to, Prob: big.NewRat(1, 1)}}}
		if b.record {
			o.leaves = []wleaf{{n.leaf, big.NewRat(1, 1)}}
		}
		return []option{o}, nil
	}
	dec := n.children[0].dec
	var r *spec.Rate
	if dec.Agent >= 0 {
		var err error
		if r, err = b.rateFor(dec.Agent, dec.Args); err != nil {
			return nil, err
		}
	}
	if r == nil {
		// The scheduler's decision: every child's choices.
		var out []option
		for _, c := range n.children {
			ds, err := b.flatten(c)
			if err != nil {
				return nil, err
			}
			out = append(out, ds...)
		}
		return dedupe(out), nil
	}
	// A rated answer: the children's choices combined, one choice per
	// child, weighted by the rate.
	a := b.m.Agents[dec.Agent]
	sum := new(big.Rat)
	acc := []option{{}}
	for _, c := range n.children {
		ra := rateOf(r, c.dec.Value)
		if ra == nil || ra.Prob.Sign() == 0 && !ra.Count {
			continue
		}
		p := ra.Prob
		var pl, ph *big.Rat
		if b.boxed {
			pl, ph = p, p
			if ra.Count && r != b.pinned {
				iv, err := b.interval(ra)
				if err != nil {
					return nil, err
				}
				pl, ph = iv[0], iv[1]
			}
		}
		sum.Add(sum, p)
		ds, err := b.flatten(c)
		if err != nil {
			return nil, err
		}
		if len(acc)*len(ds) > b.opts.maxCombos() {
			return nil, fmt.Errorf("%w: the choices after agent %s's rated answer combine into more than %d distributions", ErrTooLarge, a.Name, b.opts.maxCombos())
		}
		next := make([]option, 0, len(acc)*len(ds))
		for _, x := range acc {
			for _, d := range ds {
				o := option{d: addScaled(x.d, d.d, p, pl, ph)}
				if b.record {
					o.leaves = append([]wleaf(nil), x.leaves...)
					for _, l := range d.leaves {
						o.leaves = append(o.leaves, wleaf{l.l, new(big.Rat).Mul(p, l.w)})
					}
				}
				next = append(next, o)
			}
		}
		acc = next
	}
	if sum.Cmp(big.NewRat(1, 1)) != 0 {
		missing := []string{}
		for _, ra := range r.Answers {
			found := false
			for _, c := range n.children {
				if equal(c.dec.Value, ra.Value) {
					found = true
				}
			}
			if !found && ra.Prob.Sign() > 0 {
				missing = append(missing, fmt.Sprintf("%s (%s)", valueText(a, ra.Value), ra.Prob.RatString()))
			}
		}
		return nil, fmt.Errorf("%s: agent %s is asked where its rate's answers %s cannot be given (its assume excludes them, or their branch fails): the rated answers possible there have probability %s, not 1",
			r.Pos, a.Name, strings.Join(missing, ", "), sum.RatString())
	}
	return dedupe(acc), nil
}

// rateFor returns the rate of agent a that applies to args, nil when
// none does (the answer is then chaotic).
func (b *builder) rateFor(a int, args []int64) (*spec.Rate, error) {
	var found *spec.Rate
	for _, r := range b.rates[a] {
		ok, err := r.Applies(b.m.Agents[a], args)
		if err != nil {
			return nil, err
		}
		if ok {
			if found != nil {
				return nil, fmt.Errorf("%s: two rates of agent %s apply to the same arguments\n\t%s: the other rate", r.Pos, b.m.Agents[a].Name, found.Pos)
			}
			found = r
		}
	}
	return found, nil
}

func rateOf(r *spec.Rate, v []int64) *spec.RateAnswer {
	for i := range r.Answers {
		if equal(r.Answers[i].Value, v) {
			return &r.Answers[i]
		}
	}
	return nil
}

// interval returns the confidence interval of a count.
func (b *builder) interval(a *spec.RateAnswer) ([2]*big.Rat, error) {
	key := [2]int64{a.K, a.N}
	if iv, ok := b.cp[key]; ok {
		return iv, nil
	}
	lo, hi, err := ClopperPearson(a.K, a.N, b.level)
	if err != nil {
		return [2]*big.Rat{}, fmt.Errorf("%s: %w", a.Pos, err)
	}
	b.cp[key] = [2]*big.Rat{lo, hi}
	return b.cp[key], nil
}

func valueText(a *spec.Agent, v []int64) string {
	t := a.Result
	if t.Kind == spec.EnumKind && len(v) == 1 && v[0] >= 0 && int(v[0]) < len(t.Names) {
		return t.Names[v[0]]
	}
	if t.Kind == spec.BoolKind && len(v) == 1 {
		return fmt.Sprint(v[0] != 0)
	}
	return fmt.Sprint(v[0])
}

// addScaled returns x + p*d, merged by state; with pl and ph (the ends
// of p's interval; nil: no intervals), the intervals too: [x.lo +
// pl*d.lo, x.hi + ph*d.hi], which contains every value of the products
// of probabilities within their intervals.
func addScaled(x, d Dist, p, pl, ph *big.Rat) Dist {
	out := make(Dist, 0, len(x)+len(d))
	scaled := func(t *Trans) Trans {
		r := Trans{To: t.To, Prob: new(big.Rat).Mul(p, t.Prob)}
		if pl != nil {
			r.Lo, r.Hi = new(big.Rat).Mul(pl, t.lo()), new(big.Rat).Mul(ph, t.hi())
		}
		return r
	}
	i, j := 0, 0
	for i < len(x) || j < len(d) {
		switch {
		case j == len(d) || i < len(x) && x[i].To < d[j].To:
			out = append(out, x[i])
			i++
		case i == len(x) || d[j].To < x[i].To:
			out = append(out, scaled(&d[j]))
			j++
		default:
			t := scaled(&d[j])
			t.Prob.Add(t.Prob, x[i].Prob)
			if pl != nil {
				t.Lo.Add(t.Lo, x[i].lo())
				t.Hi.Add(t.Hi, x[i].hi())
			}
			t.To = x[i].To
			out = append(out, t)
			i++
			j++
		}
	}
	return out
}

// dedupeDists removes repeated distributions, keeping the first of each.
func dedupeDists(ds []Dist) []Dist { return dedupeBy(ds, func(d Dist) Dist { return d }) }

// dedupe removes the options of repeated distributions, keeping the
// first of each.
func dedupe(os []option) []option { return dedupeBy(os, func(o option) Dist { return o.d }) }

// dedupeBy removes the elements of xs whose distribution (dist) repeats
// an earlier one's.
func dedupeBy[T any](xs []T, dist func(T) Dist) []T {
	if len(xs) < 2 {
		return xs
	}
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		k := dist(x).key()
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// key is a text that two distributions share exactly when equal.
func (d Dist) key() string {
	var sb strings.Builder
	for _, t := range d {
		fmt.Fprintf(&sb, "%d:%s", t.To, t.Prob.RatString())
		if t.Lo != nil {
			fmt.Fprintf(&sb, "[%s,%s]", t.Lo.RatString(), t.Hi.RatString())
		}
		sb.WriteByte(',')
	}
	return sb.String()
}

// sortDist sorts d by state (for distributions built by hand).
func sortDist(d Dist) { sort.Slice(d, func(i, j int) bool { return d[i].To < d[j].To }) }

package ltl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/dominikbraun/graph/draw"
	"github.com/wrapcheck/wrapcheck/checker"
)

// Lit is a literal over the atoms: atom<<1, with the low bit set when the
// atom is negated.
type Lit int32

// MkLit returns the literal of atom, negated when neg is true.
func MkLit(atom int, neg bool) Lit {
	l := Lit(atom << 1)
	if neg {
		l |= 1
	}
	return l
}

// Atom returns the atom of l.
func (l Lit) Atom() int { return int(l >> 1) }

// Neg reports whether l is a negated atom.
func (l Lit) Neg() bool { return l&1 != 0 }

// Holds reports whether l is true under the atom valuation val.
func (l Lit) Holds(val []bool) bool { return val[l.Atom()] != l.Neg() }

// Label is a conjunction of literals, sorted, at most one per atom; the
// empty label is true.
type Label []Lit

// Holds reports whether every literal of c is true under val.
func (c Label) Holds(val []bool) bool {
	for _, l := range c {
		if val[l.Atom()] == l.Neg() {
			return false
		}
	}
	return true
}

// Format prints c with atom names (p<i> beyond names).
func (c Label) Format(names []string) string {
	if len(c) == 0 {
		return "true"
	}
	parts := make([]string, len(c))
	for i, l := range c {
		n := "p" + itoa(l.Atom())
		if l.Atom() < len(names) {
			n = names[l.Atom()]
		}
		if l.Neg() {
			n = "!" + n
		}
		parts[i] = n
	}
	return strings.Join(parts, " && ")
}

func (c Label) String() string { return c.Format(nil) }

// subset reports whether every literal of c is in d.
func (c Label) subset(d Label) bool {
	j := 0
	for _, l := range c {
		for j < len(d) && d[j] < l {
			j++
		}
		if j == len(d) || d[j] != l {
			return false
		}
	}
	return true
}

// Edge is a transition of an [Automaton]: it may be taken from its state
// on a letter that satisfies Label, and it belongs to the acceptance sets
// whose bits are set in Acc.
type Edge struct {
	To    int
	Label Label
	Acc   uint64
}

// State is a state of an [Automaton]. Name describes the obligations the
// state stands for (a conjunction of formulas), for printing only.
type State struct {
	Name  string
	Edges []Edge
}

// Automaton is a transition-based generalized Büchi automaton (TGBA): a
// run is accepting when, for each of the NumAcc acceptance sets, it takes
// infinitely many edges of that set (with NumAcc == 0, every infinite run
// is accepting). State Init is the only initial state; an automaton with
// an empty language may still have states, but no accepting run. An
// Automaton is immutable after [Translate] and safe for concurrent reads.
type Automaton struct {
	States []State
	Init   int
	NumAcc int
	// Atoms is the number of atoms the labels may mention.
	Atoms int
}

// MaxAcc is the largest number of acceptance sets an [Automaton] may have
// (one per until subformula of the negation normal form).
const MaxAcc = 64

// AllAcc returns the mask of all acceptance sets.
func (a *Automaton) AllAcc() uint64 {
	if a.NumAcc == 64 {
		return ^uint64(0)
	}
	return 1<<uint(a.NumAcc) - 1
}

// IsEmpty reports whether the automaton has no edge at all, which
// (after [Translate] pruned useless states) means its language is empty.
func (a *Automaton) IsEmpty() bool {
	for _, s := range a.States {
		if len(s.Edges) > 0 {
			return false
		}
	}
	return true
}

// NumEdges returns the number of edges.
func (a *Automaton) NumEdges() int {
	n := 0
	for _, s := range a.States {
		n += len(s.Edges)
	}
	return n
}

// Translate returns a transition-based generalized Büchi automaton whose
// language is the set of words that satisfy f. It implements the tableau
// construction of Couvreur (1999) with the simplifications described in
// the package documentation. It returns nil when f has more than [MaxAcc]
// distinct until subformulas. The automaton of a formula can be
// exponentially larger than the formula: [TranslateContext] bounds the
// time and memory it may take.
func Translate(f *Formula) *Automaton {
	a, err := translate(f, newBudget(context.Background(), 0), false)
	if err != nil {
		return nil
	}
	return a
}

// ErrMemoryBudget is returned (wrapped) when a translation or a
// property's conversion stops because the Go heap grew beyond the memory
// budget it was given.
var ErrMemoryBudget = errors.New("ltl: memory budget exceeded")

// TranslateContext is [Translate] under limits: it returns ctx's error
// when ctx is done and [ErrMemoryBudget] when the Go heap grows beyond
// budget bytes (0: no budget) before the translation ends, and
// [ErrTooManyEventualities] when f has more than [MaxAcc] distinct until
// subformulas. The context and the heap are checked every few thousand
// steps of the construction, so it stops within milliseconds of the
// deadline or the budget.
func TranslateContext(ctx context.Context, f *Formula, budget int64) (*Automaton, error) {
	return translate(f, newBudget(ctx, budget), false)
}

// budget bounds a long computation: tick counts its steps, and every
// budgetCtxEvery steps it checks the context, every budgetHeapEvery steps
// the Go heap against the memory budget. Once one of them fails, err is
// set and tick reports true from then on. Not safe for concurrent use.
type budget struct {
	ctx   context.Context
	bytes int64 // 0: none
	n     uint64
	err   error
}

const (
	budgetCtxEvery  = 1 << 10
	budgetHeapEvery = 1 << 14
)

func newBudget(ctx context.Context, bytes int64) *budget {
	return &budget{ctx: ctx, bytes: bytes}
}

// tick counts one step and reports whether the computation must stop
// (b.err says why).
func (b *budget) tick() bool {
	if b.err != nil {
		return true
	}
	b.n++
	if b.n%budgetCtxEvery != 0 {
		return false
	}
	if err := b.ctx.Err(); err != nil {
		b.err = err
		return true
	}
	if b.bytes > 0 && b.n%budgetHeapEvery == 0 && checker.HeapBytes() > uint64(b.bytes) {
		b.err = ErrMemoryBudget
		return true
	}
	return false
}

// translate is [TranslateContext]; plain turns off the normalization of
// the covers' next obligations (the differential tests compare both).
func translate(f *Formula, lim *budget, plain bool) (*Automaton, error) {
	t := &tableau{memo: map[string][]cover{}, imp: map[[2]*Formula]bool{}, untils: map[string]int{}, index: map[string]int{},
		lim: lim, plain: plain}
	collectUntils(f, t.untils)
	if len(t.untils) > MaxAcc {
		return nil, ErrTooManyEventualities
	}
	t.stateOf(t.reduceSet(flatten([]*Formula{f})))
	for i := 0; i < len(t.sets); i++ {
		for _, c := range t.covers(t.sets[i]) {
			if lim.tick() {
				return nil, lim.err
			}
			to := t.stateOf(t.reduceSet(c.next))
			t.edges[i] = append(t.edges[i], tedge{to: to, label: c.lits, post: c.post})
		}
		if lim.err != nil {
			return nil, lim.err
		}
	}
	a := &Automaton{NumAcc: len(t.untils), Atoms: f.Atoms()}
	all := a.AllAcc()
	for i, set := range t.sets {
		names := make([]string, len(set))
		for j, g := range set {
			names[j] = g.String()
		}
		s := State{Name: strings.Join(names, " && ")}
		if len(set) == 0 {
			s.Name = "true"
		}
		for _, e := range t.edges[i] {
			s.Edges = append(s.Edges, Edge{To: e.to, Label: e.label, Acc: all &^ e.post})
		}
		a.States = append(a.States, s)
	}
	if !a.simplify(lim) {
		return nil, lim.err
	}
	return a, nil
}

func collectUntils(f *Formula, m map[string]int) {
	if f.Op == OpUntil {
		if _, ok := m[f.key]; !ok {
			m[f.key] = len(m)
		}
	}
	for _, a := range f.Args {
		collectUntils(a, m)
	}
}

// flatten returns the set of conjuncts of fs: top-level conjunctions are
// split, true is dropped, and the result is sorted by key without
// duplicates.
func flatten(fs []*Formula) []*Formula {
	var out []*Formula
	var add func(f *Formula)
	add = func(f *Formula) {
		switch f.Op {
		case OpTrue:
		case OpAnd:
			for _, a := range f.Args {
				add(a)
			}
		default:
			out = append(out, f)
		}
	}
	for _, f := range fs {
		add(f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	res := out[:0]
	for i, f := range out {
		if i > 0 && f.key == out[i-1].key {
			continue
		}
		res = append(res, f)
	}
	return res
}

func setKey(set []*Formula) string {
	var b strings.Builder
	for _, f := range set {
		b.WriteString(f.key)
		b.WriteByte(';')
	}
	return b.String()
}

type tableau struct {
	memo   map[string][]cover
	imp    map[[2]*Formula]bool
	untils map[string]int
	index  map[string]int
	sets   [][]*Formula
	edges  [][]tedge
	lim    *budget
	// plain turns off the normalization of covers' next obligations
	// (the translation before it, kept for the differential tests).
	plain bool
}

type tedge struct {
	to    int
	label Label
	post  uint64
}

func (t *tableau) stateOf(set []*Formula) int {
	k := setKey(set)
	if i, ok := t.index[k]; ok {
		return i
	}
	t.index[k] = len(t.sets)
	t.sets = append(t.sets, set)
	t.edges = append(t.edges, nil)
	return len(t.sets) - 1
}

// reduceSet drops from a state's formula set the formulas implied by
// another one of the set (e.g. F p next to G(F p ∧ F q)): the conjunction
// is the same, and states that differ only in such formulas coincide.
func (t *tableau) reduceSet(set []*Formula) []*Formula {
	if len(set) < 2 {
		return set
	}
	drop := make([]bool, len(set))
	for i, g := range set {
		for j, f := range set {
			if t.lim.tick() {
				return set
			}
			if i != j && !drop[j] && t.implies(f, g) {
				drop[i] = true
				break
			}
		}
	}
	var out []*Formula
	for i, g := range set {
		if !drop[i] {
			out = append(out, g)
		}
	}
	return out
}

// implies reports whether f syntactically implies g, by sound rules in
// the style of LTL2BA and Somenzi–Bloem: f = g; g = true; f = false;
// conjunctions and disjunctions on either side; f ⇒ b gives f ⇒ a U b;
// f ⇒ a and f ⇒ b give f ⇒ a R b; a R b ⇒ b; a U b ⇒ g when a ⇒ g and
// b ⇒ g; X a ⇒ X b when a ⇒ b. It is memoized and may miss implications.
func (t *tableau) implies(f, g *Formula) bool {
	if f == g || f.key == g.key || g.Op == OpTrue || f.Op == OpFalse {
		return true
	}
	k := [2]*Formula{f, g}
	if v, ok := t.imp[k]; ok {
		return v
	}
	if t.lim.tick() {
		return false // the translation stops: the answer is not used
	}
	t.imp[k] = false // cut cycles (none are expected: operands are smaller)
	v := t.impliesRules(f, g)
	t.imp[k] = v
	return v
}

func (t *tableau) impliesRules(f, g *Formula) bool {
	switch g.Op {
	case OpAnd:
		for _, a := range g.Args {
			if !t.implies(f, a) {
				goto left
			}
		}
		return true
	case OpOr:
		for _, a := range g.Args {
			if t.implies(f, a) {
				return true
			}
		}
	case OpUntil:
		if t.implies(f, g.Args[1]) {
			return true
		}
	case OpRelease:
		if t.implies(f, g.Args[0]) && t.implies(f, g.Args[1]) {
			return true
		}
	case OpNext:
		if f.Op == OpNext && t.implies(f.Args[0], g.Args[0]) {
			return true
		}
	}
left:
	switch f.Op {
	case OpAnd:
		for _, a := range f.Args {
			if t.implies(a, g) {
				return true
			}
		}
	case OpOr:
		for _, a := range f.Args {
			if !t.implies(a, g) {
				return false
			}
		}
		return true
	case OpRelease:
		return t.implies(f.Args[1], g)
	case OpUntil:
		return t.implies(f.Args[0], g) && t.implies(f.Args[1], g)
	}
	return false
}

// cover is one way to satisfy a conjunction of formulas: the literals
// that must hold now, the formulas that must hold from the next position,
// and the untils it postponed (a U b satisfied as a ∧ X(a U b)).
type cover struct {
	lits Label
	next []*Formula // sorted by key, distinct
	post uint64
}

func mkCover(lits Label, next []*Formula, post uint64) cover {
	return cover{lits: lits, next: next, post: post}
}

// compareCovers orders covers by label length, then label, then next
// obligations, then postponed untils.
func compareCovers(a, b cover) int {
	if len(a.lits) != len(b.lits) {
		return len(a.lits) - len(b.lits)
	}
	for i := range a.lits {
		if a.lits[i] != b.lits[i] {
			return int(a.lits[i]) - int(b.lits[i])
		}
	}
	if len(a.next) != len(b.next) {
		return len(a.next) - len(b.next)
	}
	for i := range a.next {
		if c := strings.Compare(a.next[i].key, b.next[i].key); c != 0 {
			return c
		}
	}
	switch {
	case a.post < b.post:
		return -1
	case a.post > b.post:
		return 1
	}
	return 0
}

// covers returns the covers of the conjunction set: the product of the
// cover sets of its formulas, without subsumed covers.
func (t *tableau) covers(set []*Formula) []cover {
	cs := []cover{mkCover(nil, nil, 0)}
	for _, f := range set {
		cs = t.conjoin(cs, t.formulaCovers(f))
	}
	return cs
}

// formulaCovers returns the covers of f (memoized), following the
// expansion laws a U b = b ∨ (a ∧ X(a U b)) and
// a R b = (a ∧ b) ∨ (b ∧ X(a R b)).
func (t *tableau) formulaCovers(f *Formula) []cover {
	if cs, ok := t.memo[f.key]; ok {
		return cs
	}
	var cs []cover
	switch f.Op {
	case OpTrue:
		cs = []cover{mkCover(nil, nil, 0)}
	case OpFalse:
	case OpAtom, OpNotAtom:
		cs = []cover{mkCover(Label{MkLit(f.Atom, f.Op == OpNotAtom)}, nil, 0)}
	case OpAnd:
		cs = []cover{mkCover(nil, nil, 0)}
		for _, a := range f.Args {
			cs = t.conjoin(cs, t.formulaCovers(a))
		}
	case OpOr:
		for _, a := range f.Args {
			cs = append(cs, t.formulaCovers(a)...)
		}
		cs = t.reduce(cs)
	case OpNext:
		cs = []cover{mkCover(nil, t.normalize(flatten(f.Args)), 0)}
	case OpUntil:
		later := t.conjoin(t.formulaCovers(f.Args[0]), []cover{mkCover(nil, []*Formula{f}, 1<<uint(t.untils[f.key]))})
		cs = t.reduce(append(append([]cover{}, t.formulaCovers(f.Args[1])...), later...))
	case OpRelease:
		now := t.conjoin(t.formulaCovers(f.Args[0]), t.formulaCovers(f.Args[1]))
		later := t.conjoin(t.formulaCovers(f.Args[1]), []cover{mkCover(nil, []*Formula{f}, 0)})
		cs = t.reduce(append(now, later...))
	}
	t.memo[f.key] = cs
	return cs
}

// conjoin returns the covers of the conjunction of two cover sets. The
// next obligations of each cover are normalized (see
// [tableau.normalize]), so that covers which differ only in implied
// obligations subsume each other.
func (t *tableau) conjoin(as, bs []cover) []cover {
	var out []cover
	for _, a := range as {
		for _, b := range bs {
			if t.lim.tick() {
				return nil
			}
			lits, ok := mergeLabels(a.lits, b.lits)
			if !ok {
				continue
			}
			out = append(out, mkCover(lits, t.normalize(mergeSets(a.next, b.next)), a.post|b.post))
		}
	}
	return t.reduce(out)
}

// normalize returns the next obligations of a cover without the formulas
// implied by another one of them ([tableau.reduceSet]): the conjunction
// is the same, and it is the set the edge's target state gets anyway.
// Without it, the covers of a chain such as ¬p0 R (¬p1 R (… R ¬pn))
// differ in which implied obligations they carry, none subsumes another,
// and their number doubles with each level, although the automaton has
// n+1 states.
func (t *tableau) normalize(next []*Formula) []*Formula {
	if t.plain {
		return next
	}
	return t.reduceSet(next)
}

// mergeLabels returns the conjunction of two labels, or false when they
// contradict each other.
func mergeLabels(a, b Label) (Label, bool) {
	out := make(Label, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	for k := 1; k < len(out); k++ {
		if out[k].Atom() == out[k-1].Atom() {
			return nil, false
		}
	}
	return out, true
}

// mergeSets returns the union of two sorted formula sets.
func mergeSets(a, b []*Formula) []*Formula {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]*Formula, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].key < b[j].key:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].key < a[i].key:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// reduce sorts covers canonically and removes duplicates and subsumed
// covers: d subsumes c when d needs a subset of c's literals and next
// obligations and postpones a subset of c's untils.
// Once the budget is spent, it returns no cover.
func (t *tableau) reduce(cs []cover) []cover {
	if t.lim.tick() {
		return nil
	}
	sort.Slice(cs, func(i, j int) bool { return compareCovers(cs[i], cs[j]) < 0 })
	var res []cover
	for i, c := range cs {
		if i > 0 && compareCovers(c, cs[i-1]) == 0 {
			continue
		}
		sub := false
		for _, d := range res { // only smaller-or-equal labels can subsume
			if t.lim.tick() {
				return nil
			}
			if d.post&^c.post == 0 && d.lits.subset(c.lits) && t.weaker(d.next, c.next) {
				sub = true
				break
			}
		}
		if !sub {
			res = append(res, c)
		}
	}
	// Covers are sorted by label length, and a subsuming cover's label is
	// a subset, so it comes first: one pass suffices, except among covers
	// of equal labels, where the subset check on next and post applies
	// both ways; drop the ones a later equal-label cover subsumes.
	out := res[:0]
	for i, c := range res {
		sub := false
		for j := i + 1; j < len(res) && len(res[j].lits) == len(c.lits); j++ {
			if t.lim.tick() {
				return nil
			}
			d := res[j]
			if d.post&^c.post == 0 && d.lits.subset(c.lits) && t.weaker(d.next, c.next) {
				sub = true
				break
			}
		}
		if !sub {
			out = append(out, c)
		}
	}
	res = out
	return res
}

// weaker reports whether the obligations a are implied by the
// obligations b: each formula of a is one of b, or (unless t.plain) is
// implied by one of b. With normalized obligations, a formula of a may
// be missing from b because b dropped it as implied by another one.
func (t *tableau) weaker(a, b []*Formula) bool {
	if formulaSubset(a, b) {
		return true
	}
	if t.plain {
		return false
	}
	for _, g := range a {
		found := false
		for _, f := range b {
			if t.implies(f, g) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// formulaSubset reports whether every formula of the sorted set a is in the
// sorted set b.
func formulaSubset(a, b []*Formula) bool {
	j := 0
	for _, f := range a {
		for j < len(b) && b[j].key < f.key {
			j++
		}
		if j == len(b) || b[j].key != f.key {
			return false
		}
	}
	return true
}

// simplify applies the size optimisations: merging of edges, removal of
// states that cannot reach an accepting cycle, merging of bisimilar
// states, removal of redundant acceptance sets, and a canonical BFS
// numbering of the states. It reports false, leaving the automaton
// half-simplified, when lim is spent.
func (a *Automaton) simplify(lim *budget) bool {
	for changed := true; changed; {
		changed = a.mergeEdges(lim)
		if lim.err != nil {
			return false
		}
		if a.prune() {
			changed = true
		}
		if a.mergeStates(lim) {
			changed = true
		}
		if lim.err != nil {
			return false
		}
	}
	a.reduceAcc(lim)
	if lim.err != nil {
		return false
	}
	a.renumber()
	return true
}

// mergeEdges removes, per state, duplicate and subsumed edges (same target,
// weaker label, more acceptance sets) and joins two edges that differ in
// the polarity of one literal. It reports whether it changed anything.
func (a *Automaton) mergeEdges(lim *budget) bool {
	changed := false
	for si := range a.States {
		es := a.States[si].Edges
		for {
			if lim.tick() {
				return changed
			}
			n := len(es)
			es = mergePolarity(subsumeEdges(es, lim))
			if len(es) == n {
				break
			}
			changed = true
		}
		a.States[si].Edges = es
	}
	return changed
}

// subsumeEdges drops the edges made redundant by another edge to the same
// target with a label that is a subset and acceptance sets that are a
// superset (keeping the first of equal edges). The order is kept.
func subsumeEdges(es []Edge, lim *budget) []Edge {
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	// A subsuming edge has a label at most as long and at least as many
	// acceptance sets: look at those first.
	sort.SliceStable(order, func(i, j int) bool {
		a, b := es[order[i]], es[order[j]]
		if len(a.Label) != len(b.Label) {
			return len(a.Label) < len(b.Label)
		}
		return bits.OnesCount64(a.Acc) > bits.OnesCount64(b.Acc)
	})
	keep := make([]bool, len(es))
	var kept []int
	for _, i := range order {
		e := es[i]
		sub := false
		for _, k := range kept {
			if lim.tick() {
				return es
			}
			d := es[k]
			if d.To == e.To && d.Acc&e.Acc == e.Acc && d.Label.subset(e.Label) {
				sub = true
				break
			}
		}
		if !sub {
			keep[i] = true
			kept = append(kept, i)
		}
	}
	out := es[:0:0]
	for i, e := range es {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}

// mergePolarity joins pairs of edges with the same target and acceptance
// sets whose labels differ only in the polarity of one literal
// (l ∧ c) ∨ (¬l ∧ c) = c. One pass; the caller repeats to a fixpoint.
func mergePolarity(es []Edge) []Edge {
	type slot struct {
		edge int
		neg  bool
	}
	seen := map[string]slot{}
	gone := make([]bool, len(es))
	dirty := make([]bool, len(es)) // label changed: its keys in seen are stale
	var b strings.Builder
	for i := range es {
		if gone[i] {
			continue
		}
		e := es[i]
		for k, l := range e.Label {
			b.Reset()
			fmt.Fprintf(&b, "%d|%d|%d|", e.To, e.Acc, l.Atom())
			for j, m := range e.Label {
				if j != k {
					fmt.Fprintf(&b, "%d,", m)
				}
			}
			key := b.String()
			if o, ok := seen[key]; ok && !gone[o.edge] && !dirty[o.edge] && o.neg != l.Neg() {
				lab := append(append(Label{}, e.Label[:k]...), e.Label[k+1:]...)
				es[o.edge] = Edge{To: e.To, Label: lab, Acc: e.Acc}
				dirty[o.edge] = true
				gone[i] = true
				break
			}
			seen[key] = slot{i, l.Neg()}
		}
	}
	out := es[:0:0]
	for i, e := range es {
		if !gone[i] {
			out = append(out, e)
		}
	}
	return out
}

// sccs returns the strongly connected components of the automaton's
// graph (computed with dominikbraun/graph), as a component number per
// state. Vertex keys are state+1: graph v0.23.0's Tarjan never emits the
// component of the vertex whose key is the zero value (it pops the stack
// "until hash != vertex", starting from a zero hash).
func (a *Automaton) sccs() []int {
	g := graph.New(graph.IntHash, graph.Directed())
	for i := range a.States {
		_ = g.AddVertex(i + 1)
	}
	for i, s := range a.States {
		for _, e := range s.Edges {
			_ = g.AddEdge(i+1, e.To+1) // a parallel edge is already there
		}
	}
	comps, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		panic("wrapcheck internal error: ltl: " + err.Error())
	}
	comp := make([]int, len(a.States))
	for i := range comp {
		comp[i] = -1
	}
	for c, vs := range comps {
		for _, v := range vs {
			comp[v-1] = c
		}
	}
	for _, c := range comp {
		if c < 0 {
			panic("wrapcheck internal error: ltl: a state without SCC")
		}
	}
	return comp
}

// prune removes the states from which no accepting cycle is reachable. It
// reports whether it removed anything.
func (a *Automaton) prune() bool {
	comp := a.sccs()
	acc := map[int]uint64{}
	internal := map[int]bool{}
	for i, s := range a.States {
		for _, e := range s.Edges {
			if comp[e.To] == comp[i] {
				internal[comp[i]] = true
				acc[comp[i]] |= e.Acc
			}
		}
	}
	all := a.AllAcc()
	useful := make([]bool, len(a.States))
	var work []int
	for i := range a.States {
		if internal[comp[i]] && acc[comp[i]] == all {
			useful[i] = true
			work = append(work, i)
		}
	}
	pred := make([][]int, len(a.States))
	for i, s := range a.States {
		for _, e := range s.Edges {
			pred[e.To] = append(pred[e.To], i)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range pred[v] {
			if !useful[p] {
				useful[p] = true
				work = append(work, p)
			}
		}
	}
	if !useful[a.Init] {
		// Empty language: keep the initial state alone, without edges.
		if len(a.States) == 1 && len(a.States[a.Init].Edges) == 0 {
			return false
		}
		a.States = []State{{Name: a.States[a.Init].Name}}
		a.Init = 0
		return true
	}
	removed := false
	for i := range a.States {
		if !useful[i] {
			removed = true
		}
	}
	if !removed {
		return false
	}
	return a.quotient(func(i int) int {
		if useful[i] {
			return i
		}
		return -1
	})
}

// quotient rebuilds the automaton keeping the states with class(i) >= 0,
// merging states of equal class (their edges must agree up to the
// classes) and redirecting edges; edges into dropped states disappear.
func (a *Automaton) quotient(class func(int) int) bool {
	var ids []int // class -> new id
	newID := map[int]int{}
	var states []State
	for i, s := range a.States {
		c := class(i)
		if c < 0 {
			continue
		}
		if _, ok := newID[c]; ok {
			continue
		}
		newID[c] = len(states)
		ids = append(ids, c)
		states = append(states, State{Name: s.Name})
	}
	done := map[int]bool{}
	for i, s := range a.States {
		c := class(i)
		if c < 0 || done[c] {
			continue
		}
		done[c] = true
		n := newID[c]
		for _, e := range s.Edges {
			tc := class(e.To)
			if tc < 0 {
				continue
			}
			states[n].Edges = append(states[n].Edges, Edge{To: newID[tc], Label: e.Label, Acc: e.Acc})
		}
	}
	a.Init = newID[class(a.Init)]
	a.States = states
	return true
}

// mergeStates merges bisimilar states (the coarsest partition in which
// equivalent states have the same edges up to the partition). It reports
// whether it merged anything.
func (a *Automaton) mergeStates(lim *budget) bool {
	n := len(a.States)
	class := make([]int, n)
	numClasses := 1
	for {
		sigs := map[string]int{}
		next := make([]int, n)
		for i, s := range a.States {
			if lim.tick() {
				return false
			}
			parts := make([]string, 0, len(s.Edges))
			for _, e := range s.Edges {
				parts = append(parts, fmt.Sprintf("%v|%d|%d", e.Label, e.Acc, class[e.To]))
			}
			sort.Strings(parts)
			k := fmt.Sprint(class[i], parts)
			c, ok := sigs[k]
			if !ok {
				c = len(sigs)
				sigs[k] = c
			}
			next[i] = c
		}
		class = next
		if len(sigs) == numClasses {
			break
		}
		numClasses = len(sigs)
	}
	if numClasses == n {
		return false
	}
	a.quotient(func(i int) int { return class[i] })
	for i := range a.States { // merged states may have duplicate edges now
		a.States[i].Edges = dedupEdges(a.States[i].Edges, lim)
	}
	return true
}

func dedupEdges(es []Edge, lim *budget) []Edge {
	var out []Edge
	for _, e := range es {
		dup := false
		for _, o := range out {
			if lim.tick() {
				return es
			}
			if o.To == e.To && o.Acc == e.Acc && o.Label.subset(e.Label) && e.Label.subset(o.Label) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out
}

// reduceAcc drops acceptance sets that every cycle edge belongs to and
// merges acceptance sets that contain the same cycle edges.
func (a *Automaton) reduceAcc(lim *budget) {
	if a.NumAcc == 0 {
		return
	}
	comp := a.sccs()
	var patterns []string // per set: which internal edges carry it
	pat := make([][]byte, a.NumAcc)
	for i, s := range a.States {
		for _, e := range s.Edges {
			if comp[e.To] != comp[i] {
				continue
			}
			for k := 0; k < a.NumAcc; k++ {
				b := byte('0')
				if e.Acc&(1<<uint(k)) != 0 {
					b = '1'
				}
				pat[k] = append(pat[k], b)
			}
		}
	}
	remap := make([]int, a.NumAcc)
	seen := map[string]int{}
	num := 0
	for k := 0; k < a.NumAcc; k++ {
		p := string(pat[k])
		if !strings.Contains(p, "0") {
			remap[k] = -1 // on every cycle edge: vacuous
			continue
		}
		if j, ok := seen[p]; ok {
			remap[k] = j
			continue
		}
		seen[p] = num
		patterns = append(patterns, p)
		remap[k] = num
		num++
	}
	for i := range a.States {
		for j, e := range a.States[i].Edges {
			var acc uint64
			for k := 0; k < a.NumAcc; k++ {
				if remap[k] >= 0 && e.Acc&(1<<uint(k)) != 0 {
					acc |= 1 << uint(remap[k])
				}
			}
			a.States[i].Edges[j].Acc = acc
		}
	}
	a.NumAcc = len(patterns)
	for i := range a.States { // acceptance changes may make edges comparable
		a.States[i].Edges = dedupEdges(a.States[i].Edges, lim)
	}
	a.mergeEdges(lim)
}

// renumber numbers the states in BFS order from Init and sorts the edges
// of each state, so that equal automata print equally.
func (a *Automaton) renumber() {
	order := []int{a.Init}
	id := map[int]int{a.Init: 0}
	for k := 0; k < len(order); k++ {
		for _, e := range a.States[order[k]].Edges {
			if _, ok := id[e.To]; !ok {
				id[e.To] = len(order)
				order = append(order, e.To)
			}
		}
	}
	states := make([]State, len(order))
	for n, old := range order {
		s := a.States[old]
		es := make([]Edge, len(s.Edges))
		for j, e := range s.Edges {
			es[j] = Edge{To: id[e.To], Label: e.Label, Acc: e.Acc}
		}
		sort.Slice(es, func(i, j int) bool {
			if es[i].To != es[j].To {
				return es[i].To < es[j].To
			}
			if li, lj := es[i].Label.String(), es[j].Label.String(); li != lj {
				return li < lj
			}
			return es[i].Acc < es[j].Acc
		})
		states[n] = State{Name: s.Name, Edges: es}
	}
	a.States = states
	a.Init = 0
}

// AcceptsLasso reports whether the automaton accepts the ultimately
// periodic word prefix·loop^ω, where each letter gives the truth value of
// every atom (len(letter) >= a.Atoms). loop must not be empty.
func (a *Automaton) AcceptsLasso(prefix, loop [][]bool) bool {
	word := append(append([][]bool{}, prefix...), loop...)
	n := len(word)
	succ := func(i int) int {
		if i+1 < n {
			return i + 1
		}
		return len(prefix)
	}
	// Product nodes q*n+i.
	type pedge struct {
		to  int
		acc uint64
	}
	adj := func(v int) []pedge {
		q, i := v/n, v%n
		var out []pedge
		for _, e := range a.States[q].Edges {
			if e.Label.Holds(word[i]) {
				out = append(out, pedge{e.To*n + succ(i), e.Acc})
			}
		}
		return out
	}
	total := len(a.States) * n
	comp := make([]int, total)
	for i := range comp {
		comp[i] = -1
	}
	index := make([]int, total)
	low := make([]int, total)
	onStack := make([]bool, total)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	counter, ncomp := 0, 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = counter, counter
		counter++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range adj(v) {
			if index[e.to] < 0 {
				strong(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	strong(a.Init*n + 0)
	acc := make([]uint64, ncomp)
	cyc := make([]bool, ncomp)
	for v := 0; v < total; v++ {
		if comp[v] < 0 {
			continue
		}
		for _, e := range adj(v) {
			if comp[e.to] == comp[v] {
				cyc[comp[v]] = true
				acc[comp[v]] |= e.acc
			}
		}
	}
	all := a.AllAcc()
	for c := 0; c < ncomp; c++ {
		if cyc[c] && acc[c] == all {
			return true
		}
	}
	return false
}

// Format prints the automaton as text: a header line, then per state its
// number and obligations, then one line per edge with its label (atom i
// named names[i] when given), target and acceptance sets.
func (a *Automaton) Format(names []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d, edges %d, acceptance sets %d, initial %d\n", len(a.States), a.NumEdges(), a.NumAcc, a.Init)
	for i, s := range a.States {
		fmt.Fprintf(&b, "state %d: %s\n", i, s.Name)
		for _, e := range s.Edges {
			fmt.Fprintf(&b, "  -> %d  %s%s\n", e.To, e.Label.Format(names), accString(e.Acc))
		}
	}
	return b.String()
}

// String returns [Automaton.Format] with the default atom names.
func (a *Automaton) String() string { return a.Format(nil) }

func accString(acc uint64) string {
	if acc == 0 {
		return ""
	}
	var parts []string
	for k := 0; k < 64; k++ {
		if acc&(1<<uint(k)) != 0 {
			parts = append(parts, itoa(k))
		}
	}
	return " {" + strings.Join(parts, ",") + "}"
}

// DOT returns the automaton in Graphviz DOT syntax, built with
// dominikbraun/graph's draw package: one circle per state (labelled with
// its number, its obligations as tooltip), an arrow from an invisible
// "start" point to the initial state, and one edge per pair of states
// whose label lists the edges' labels and acceptance sets, one per line.
// The statements are sorted, so the output is deterministic.
func (a *Automaton) DOT() string {
	g := graph.New(graph.StringHash, graph.Directed())
	key := func(i int) string { return "q" + itoa(i) }
	_ = g.AddVertex("start", graph.VertexAttributes(map[string]string{"shape": "point", "style": "invis"}))
	for i, s := range a.States {
		_ = g.AddVertex(key(i), graph.VertexAttributes(map[string]string{
			"label": itoa(i), "shape": "circle", "tooltip": dotEscape(s.Name)}))
	}
	_ = g.AddEdge("start", key(a.Init))
	for i, s := range a.States {
		group := map[int][]string{}
		var targets []int
		for _, e := range s.Edges {
			if _, ok := group[e.To]; !ok {
				targets = append(targets, e.To)
			}
			group[e.To] = append(group[e.To], dotEscape(e.Label.String()+accString(e.Acc)))
		}
		for _, t := range targets {
			_ = g.AddEdge(key(i), key(t), graph.EdgeAttribute("label", strings.Join(group[t], `\n`)))
		}
	}
	var buf bytes.Buffer
	if err := draw.DOT(g, &buf); err != nil {
		panic("wrapcheck internal error: ltl: " + err.Error())
	}
	// draw iterates over maps: sort the statements for a stable output.
	var head, body []string
	for _, line := range strings.Split(buf.String(), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line == "}":
		case strings.HasPrefix(line, "strict digraph"):
			head = append(head, line)
		default:
			body = append(body, "\t"+line)
		}
	}
	sort.Strings(body)
	return strings.Join(append(append(head, body...), "}"), "\n") + "\n"
}

func dotEscape(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }

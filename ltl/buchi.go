package ltl

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/verdict"
)

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
	if b.bytes > 0 && b.n%budgetHeapEvery == 0 && verdict.HeapBytes() > uint64(b.bytes) {
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

package diff

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Default bounds of the product search, per direction.
const (
	DefaultMaxNodes     = 1 << 20
	DefaultMaxSetStates = 1 << 24
)

// Direction is the outcome of the search for a trace that spec From
// allows and spec To does not.
type Direction struct {
	From, To string // "old" and "new", or "new" and "old"
	// Trace is the shortest distinguishing trace found, in From's terms;
	// nil when there is none or the search was incomplete.
	Trace *Trace
	// Incomplete is set when a bound or the context stopped the search
	// before it found a trace or explored every pair; Reason says which.
	Incomplete bool
	Reason     string
	Nodes      int64 // pairs (state of From, set of states of To) explored
}

// Trace is a trace of From that To cannot follow: To has runs matching
// every step but the last.
type Trace struct {
	Steps []verdict.Step // Steps[0] is an initial state of From
	// Why says why To cannot take the last step: it has no such action,
	// the action is not enabled in any state To can be in, or its
	// successors differ in the listed shared variables.
	Why      string
	Mismatch []string // "shipped: old 1, new 0", for a step To takes differently
}

// side is one spec in a search.
type side struct {
	name  string
	m     *spec.Model
	prog  *machine.Program
	mach  *machine.Machine
	store *machine.Store
	obs   [][2]int // observed (slot, width), in the Observation's order
	buf   []int64
	vec   []uint64
}

func newSide(name string, m *spec.Model, shared []Shared, isOld bool) (*side, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	s := &side{name: name, m: m, prog: prog, mach: prog.NewMachine(), store: machine.NewStore(max(prog.Words(), 1)),
		buf: make([]int64, prog.Slots()), vec: make([]uint64, max(prog.Words(), 1))}
	for _, sh := range shared {
		v := sh.New
		if isOld {
			v = sh.Old
		}
		s.obs = append(s.obs, [2]int{v.Slot, v.Type.Width})
	}
	return s, nil
}

// reset empties the side's store, for a new search.
func (s *side) reset() { s.store = machine.NewStore(max(s.prog.Words(), 1)) }

// insert stores t (a vector of the side's program) and returns its index.
func (s *side) insert(t machine.State) (uint32, error) {
	copy(s.vec, t)
	idx, _, err := s.store.Insert(s.vec, 0)
	return idx, err
}

// appendObs appends the observation of t to key.
func (s *side) appendObs(key []byte, t machine.State) []byte {
	s.prog.Unpack(s.buf, t)
	for _, o := range s.obs {
		for _, v := range s.buf[o[0] : o[0]+o[1]] {
			key = binary.LittleEndian.AppendUint64(key, uint64(v))
		}
	}
	return key
}

// node is a pair of the product: a state of A and a set of states of B.
type node struct {
	a      uint32
	set    int32
	parent int32 // -1 for an initial pair
	action int32 // A's action into a; -1 for an initial pair
}

// searcher finds the shortest trace of a that b cannot follow.
type searcher struct {
	a, b   *side
	amap   []int // A action -> B action, or -1
	opts   Options
	nodes  []node
	seen   map[uint64]int32
	sets   [][]uint32 // interned sets of two or more states
	setIDs map[string]int32
	elems  int64
	one    [1]uint32 // members of a singleton
}

// intern returns the ID of set (sorted and deduplicated in place): -1-x
// for the singleton {x}, else an index into sets.
func (s *searcher) intern(set []uint32) int32 {
	slices.Sort(set)
	set = slices.Compact(set)
	if len(set) == 1 {
		return -1 - int32(set[0])
	}
	key := make([]byte, 0, 4*len(set))
	for _, x := range set {
		key = binary.LittleEndian.AppendUint32(key, x)
	}
	if id, ok := s.setIDs[string(key)]; ok {
		return id
	}
	id := int32(len(s.sets))
	s.sets = append(s.sets, slices.Clone(set))
	s.setIDs[string(key)] = id
	s.elems += int64(len(set))
	return id
}

// members returns the states of set id; a singleton's slice is valid
// until the next call.
func (s *searcher) members(id int32) []uint32 {
	if id < 0 {
		s.one[0] = uint32(-1 - id)
		return s.one[:]
	}
	return s.sets[id]
}

// buckets groups B's successors of one pair by (action, observation)
// without allocating per successor: a hash chain over records whose keys
// lie in one byte arena, reset for every pair.
type buckets struct {
	seed maphash.Seed
	head map[uint64]int32
	recs []bucketRec
	keys []byte
}

type bucketRec struct {
	next       int32
	start, end int32
	b          uint32
}

func (t *buckets) reset() {
	clear(t.head)
	t.recs, t.keys = t.recs[:0], t.keys[:0]
}

func (t *buckets) add(key []byte, b uint32) {
	h := maphash.Bytes(t.seed, key)
	next, ok := t.head[h]
	if !ok {
		next = -1
	}
	start := int32(len(t.keys))
	t.keys = append(t.keys, key...)
	t.recs = append(t.recs, bucketRec{next: next, start: start, end: int32(len(t.keys)), b: b})
	t.head[h] = int32(len(t.recs) - 1)
}

// get appends to out the states whose key is key.
func (t *buckets) get(key []byte, out []uint32) []uint32 {
	i, ok := t.head[maphash.Bytes(t.seed, key)]
	if !ok {
		return out
	}
	for ; i >= 0; i = t.recs[i].next {
		r := t.recs[i]
		if bytes.Equal(t.keys[r.start:r.end], key) {
			out = append(out, r.b)
		}
	}
	return out
}

// add records the pair (a, set) reached from parent by action; it
// reports whether a bound was hit.
func (s *searcher) add(a uint32, set []uint32, parent, action int32) bool {
	id := s.intern(set)
	k := uint64(a)<<32 | uint64(uint32(id))
	if _, ok := s.seen[k]; ok {
		return false
	}
	s.seen[k] = int32(len(s.nodes))
	s.nodes = append(s.nodes, node{a: a, set: id, parent: parent, action: action})
	return int64(len(s.nodes)) > s.opts.maxNodes() || s.elems > s.opts.maxSetStates() || s.b.store.Len() > s.opts.maxNodes()
}

// found is a distinguishing step: from pair parent (-1: none, an initial
// state) by action into state vec of A.
type found struct {
	parent int32
	action int
	vec    []uint64
}

// search runs the product search of a against b.
func search(ctx context.Context, a, b *side, amap []int, opts Options) (*Direction, error) {
	s := &searcher{a: a, b: b, amap: amap, opts: opts, seen: map[uint64]int32{}, setIDs: map[string]int32{}}
	d := &Direction{From: a.name, To: b.name}
	var hit *found
	bound := false
	// Initial pairs: every initial state of A with the initial states of
	// B that look the same.
	binit := map[string][]uint32{}
	var key []byte
	var ierr error
	_ = b.mach.Init(func(_ int, t machine.State) {
		idx, err := b.insert(t)
		if err != nil {
			ierr = err
			return
		}
		key = b.appendObs(key[:0], t)
		binit[string(key)] = append(binit[string(key)], idx)
	})
	if ierr != nil {
		return nil, ierr
	}
	var ainit [][]uint64
	_ = a.mach.Init(func(_ int, t machine.State) { ainit = append(ainit, slices.Clone(t)) })
	for _, t := range ainit {
		if hit != nil || bound {
			break
		}
		key = a.appendObs(key[:0], t)
		set := binit[string(key)]
		if len(set) == 0 {
			hit = &found{parent: -1, action: -1, vec: t}
			break
		}
		idx, err := a.insert(t)
		if err != nil {
			return nil, err
		}
		bound = s.add(idx, slices.Clone(set), -1, -1)
	}
	// Breadth-first over the pairs: nodes is the queue.
	bk := &buckets{seed: maphash.MakeSeed(), head: map[uint64]int32{}}
	var setBuf []uint32
	// One expansion (the successors of a state, or of every state of a
	// set) may be long and large: the machines poll ctx, and the visitors
	// look at it every 64 successors and store nothing once it is done.
	interrupted := func() bool { return ctx.Err() != nil }
	a.mach.SetInterrupt(interrupted)
	b.mach.SetInterrupt(interrupted)
	defer a.mach.SetInterrupt(nil)
	defer b.mach.SetInterrupt(nil)
	visits, stopped := 0, false
	stop := func(m *machine.Machine) bool {
		if visits++; visits%64 == 0 && !stopped && ctx.Err() != nil {
			stopped = true
			m.PollSoon()
		}
		return stopped
	}
	incomplete := func() *Direction {
		d.Incomplete, d.Reason, d.Nodes = true, "interrupted", int64(len(s.nodes))
		cause := context.Cause(ctx)
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			d.Reason = "timed out (--timeout)"
		case cause != nil && !errors.Is(cause, context.Canceled):
			d.Reason = cause.Error() // a budget's, such as "memory budget"
		}
		return d
	}
	// The visitors are made once: a closure per call would allocate.
	var err error
	var cur int32 // the pair being expanded
	visitB := func(act, _ int, t machine.State) {
		if err != nil || stop(b.mach) {
			return
		}
		var idx uint32
		if idx, err = b.insert(t); err != nil {
			return
		}
		k := binary.LittleEndian.AppendUint32(key[:0], uint32(act))
		key = b.appendObs(k, t)
		bk.add(key, idx)
	}
	visitA := func(act, _ int, t machine.State) {
		if hit != nil || bound || err != nil || stop(a.mach) {
			return
		}
		set := setBuf[:0]
		if ba := amap[act]; ba >= 0 {
			k := binary.LittleEndian.AppendUint32(key[:0], uint32(ba))
			key = a.appendObs(k, t)
			set = bk.get(key, set)
			setBuf = set
		}
		if len(set) == 0 {
			hit = &found{parent: cur, action: act, vec: slices.Clone(t)}
			return
		}
		var idx uint32
		if idx, err = a.insert(t); err != nil {
			return
		}
		bound = s.add(idx, set, cur, int32(act))
	}
	for i := 0; hit == nil && !bound && i < len(s.nodes); i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return incomplete(), nil
		}
		n := s.nodes[i]
		cur = int32(i)
		bk.reset()
		for _, bi := range s.members(n.set) {
			_ = b.mach.Successors(b.store.Vector(bi), visitB)
			if err != nil {
				return nil, err
			}
			if stopped || b.mach.Interrupted() {
				return incomplete(), nil
			}
		}
		_ = a.mach.Successors(a.store.Vector(n.a), visitA)
		if err != nil {
			return nil, err
		}
		if stopped || a.mach.Interrupted() {
			return incomplete(), nil
		}
	}
	d.Nodes = int64(len(s.nodes))
	switch {
	case hit != nil:
		tr, err := s.trace(hit)
		if err != nil {
			return nil, err
		}
		d.Trace = tr
	case bound:
		d.Incomplete = true
		switch {
		case int64(len(s.nodes)) > opts.maxNodes():
			d.Reason = fmt.Sprintf("more than %d pairs (--max-nodes)", opts.maxNodes())
		case b.store.Len() > opts.maxNodes():
			d.Reason = fmt.Sprintf("more than %d states of %s (--max-nodes)", opts.maxNodes(), b.name)
		default:
			d.Reason = fmt.Sprintf("more than %d states in the sets of %s (--max-set-states)", opts.maxSetStates(), b.name)
		}
	}
	return d, nil
}

// trace rebuilds the distinguishing trace ending in f, with the answers
// taken on each step, and says why B cannot follow its last step.
func (s *searcher) trace(f *found) (*Trace, error) {
	type hop struct {
		action int
		vec    []uint64
	}
	hops := []hop{{f.action, f.vec}}
	for p := f.parent; p >= 0; p = s.nodes[p].parent {
		n := s.nodes[p]
		hops = append(hops, hop{int(n.action), slices.Clone(s.a.store.Vector(n.a))})
	}
	slices.Reverse(hops)
	mach := s.a.prog.NewMachine()
	mach.RecordAnswers(true)
	tr := &Trace{}
	var prev []uint64
	for _, h := range hops {
		var asked []verdict.Answer
		picked := false
		pick := func(act int, t machine.State) {
			if !picked && act == h.action && slices.Equal(t, h.vec) {
				asked, picked = machine.CloneAnswers(mach.Asked()), true
			}
		}
		if prev == nil {
			_ = mach.Init(func(_ int, t machine.State) { pick(-1, t) })
		} else {
			_ = mach.Successors(prev, func(act, _ int, t machine.State) { pick(act, t) })
		}
		st := make([]int64, s.a.prog.Slots())
		s.a.prog.Unpack(st, h.vec)
		tr.Steps = append(tr.Steps, verdict.Step{Action: h.action, State: st, Asked: asked})
		prev = h.vec
	}
	s.why(tr, f)
	return tr, nil
}

// why explains why B cannot take the last step of tr.
func (s *searcher) why(tr *Trace, f *found) {
	a, b := s.a, s.b
	last := tr.Steps[len(tr.Steps)-1]
	var cands []machine.State // B's states before the step, or B's initial states
	label := "the initial state"
	ba := -1
	if f.parent < 0 {
		_ = b.mach.Init(func(_ int, t machine.State) { cands = append(cands, slices.Clone(t)) })
		if len(cands) == 0 {
			tr.Why = fmt.Sprintf("%s has no initial state", b.name)
			return
		}
	} else {
		label = a.m.Actions[f.action].Name
		ba = s.amap[f.action]
		if ba < 0 {
			tr.Why = fmt.Sprintf("%s has no action %s", b.name, label)
			return
		}
		for _, bi := range s.members(s.nodes[f.parent].set) {
			_ = b.mach.Successors(b.store.Vector(bi), func(act, _ int, t machine.State) {
				if act == ba {
					cands = append(cands, slices.Clone(t))
				}
			})
		}
		if len(cands) == 0 {
			tr.Why = fmt.Sprintf("%s %s is not enabled in any state %s can be in", b.name, b.m.Actions[ba].Name, b.name)
			return
		}
	}
	// The candidate that differs in the fewest shared variables (the
	// first of those), compared variable by variable.
	bst := make([]int64, b.prog.Slots())
	var mis []string
	for ci, c := range cands {
		b.prog.Unpack(bst, c)
		var cm []string
		for i, o := range a.obs {
			x := last.State[o[0] : o[0]+o[1]]
			ob := b.obs[i]
			y := bst[ob[0] : ob[0]+ob[1]]
			if !slices.Equal(x, y) {
				v := varAt(a.m, o[0])
				xs, ys := report.ValueText(v.Type, x), report.ValueText(v.Type, y)
				if a.name != "old" {
					xs, ys = ys, xs
				}
				cm = append(cm, fmt.Sprintf("%s: old %s, new %s", v.Name, xs, ys))
			}
		}
		if ci == 0 || len(cm) < len(mis) {
			mis = cm
		}
	}
	tr.Mismatch = mis
	if f.parent < 0 {
		tr.Why = fmt.Sprintf("no initial state of %s has the same shared variables", b.name)
	} else if len(cands) == 1 {
		tr.Why = fmt.Sprintf("%s %s leads to different shared variables", b.name, b.m.Actions[ba].Name)
	} else {
		tr.Why = fmt.Sprintf("%s %s leads to different shared variables (%d ways; the closest is shown)", b.name, b.m.Actions[ba].Name, len(cands))
	}
}

// varAt returns the variable of m whose first slot is slot.
func varAt(m *spec.Model, slot int) *spec.Var {
	for _, v := range m.Vars {
		if v.Slot == slot {
			return v
		}
	}
	panic("wrapcheck internal error: diff: no variable at slot " + fmt.Sprint(slot))
}

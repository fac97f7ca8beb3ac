package reduce

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Value kinds of a slot, as a permutation sees them.
const (
	valPlain uint8 = iota // not symmetric: unchanged by every permutation
	valSym                // an identity of a symmetric type: v -> π(v)
	valSet                // a set of a symmetric type: bit v -> bit π(v)
)

// canon is the precomputed action of the symmetry group on the slots of
// one model. It is immutable after [Symmetry]; the per-call buffers live in
// a scratch taken from pool.
type canon struct {
	n     int          // slots
	types []*spec.Type // the permuted symmetric types
	sizes []int        // identities per symmetric type
	// Per slot: the value kind and its symmetric type (-1: none), and its
	// coordinates [coordStart[d], coordStart[d+1]) into coordTyp/coordVal/
	// coordStr: the symmetric array indexes and family indexes on the
	// slot's path, with the distance in slots between neighbouring index
	// values.
	vkind      []uint8
	vtyp       []int32
	coordStart []int32
	coordTyp   []int32
	coordVal   []int32
	coordStr   []int32
	// Signature seeds: per coordinate entry (class and position), and per
	// slot for the slots that hold an identity or a set of identities.
	coordSeed []uint64
	refSeed   []uint64
	// relevant lists the slots some permutation can change, ascending.
	relevant []int32
	// rows[t][i] lists the slots with a coordinate i of type t, and
	// valueSlots[t] the slots holding identities or sets of type t: the
	// slots that exchanging two identities of t can change.
	rows       [][][]int32
	valueSlots [][]int32
	// linked lists the slots that hold identities or sets of identities
	// and have coordinates: they link identities to identities, and
	// refining the signatures along them can split ties.
	linked []int32
	// pinned[t]: the first identity of type t stays in place (the group
	// is its stabiliser); it gets a signature below every other.
	pinned    []bool
	anyPinned bool
	// Sequences (an extension): the slots of a sequence's elements at
	// its length and past it are storage, not value: they hold the zero
	// value in every state the machine builds, an identity included (the
	// first). They take no part in a canonicalisation: a dead slot adds
	// nothing to the signatures, and a permuted state has the zero value
	// there, not the image of the zero identity (which would tell the
	// first identity apart, so that two states of one orbit got two
	// representatives, and a trace's replay its step lost). Per slot:
	// seqLen the slot of the length of the innermost sequence that holds
	// it (-1: none), seqK its element's index there, seqZero its zero
	// value; nil without sequences.
	seqLen  []int32
	seqK    []int32
	seqZero []int64
	pool    sync.Pool
}

// dead reports whether slot d of s is past the length of the sequence
// that holds it. An element of an inner sequence past the outer one's
// length is dead too: the inner length is then the zero value, 0.
func (c *canon) dead(s []int64, d int) bool {
	if c.seqLen == nil {
		return false
	}
	l := c.seqLen[d]
	return l >= 0 && s[l] <= int64(c.seqK[d])
}

// markSeq records the element slots of the sequence of type t at slot
// base, before the walk goes into its elements (an inner sequence marks
// its own over them).
func (c *canon) markSeq(t *spec.Type, base int) {
	if c.seqLen == nil {
		c.seqLen = make([]int32, c.n)
		for d := range c.seqLen {
			c.seqLen[d] = -1
		}
		c.seqK = make([]int32, c.n)
		c.seqZero = make([]int64, c.n)
	}
	el := t.Fields[1]
	w := el.Type.Elem.Width
	spec.ZeroSlots(el.Type, c.seqZero[base+el.Offset:base+el.Offset+el.Type.Width])
	for k := range int(el.Type.Index.Size()) {
		for j := range w {
			d := base + el.Offset + k*w + j
			c.seqLen[d], c.seqK[d] = int32(base+t.Fields[0].Offset), int32(k)
		}
	}
}

// scratch holds the buffers of one canonicalisation.
type scratch struct {
	best  []int64
	sig   [][]uint64 // per type, per identity
	sig2  [][]uint64 // the next round of refine
	order [][]int32  // per type: order[j] = old identity that becomes j (π⁻¹)
	fwd   [][]int32  // per type: fwd[i] = π(i)
	// tie groups (all types), for the enumeration of candidates
	groups []group
}

// group is a run of identities of one type with equal signatures, at
// positions [lo, lo+len(members)) of the sorted order.
type group struct {
	typ     int
	lo      int
	members []int32 // the identities, ascending
	labels  []int32 // twin class of the member placed at each position
	first   []int32 // per twin class, its members start here in byClass
	byClass []int32 // members sorted by twin class (stable)
}

// Symmetry returns the canonicalisation hook for the symmetric types of m:
// a function that maps a state to the lexicographically smallest state of
// its orbit under the permutations allowed by the signature order (see the
// package documentation for why this is exact). It returns nil, nil when
// no slot of the state depends on a symmetric type with two or more
// identities. The error reports a state layout the permutations cannot
// act on (copies of a family local that are not evenly spaced), which
// the IR's contract rules out. The returned
// function is safe for concurrent use and allocates nothing in the steady
// state.
func Symmetry(m *spec.Model) (verdict.CanonFunc, error) {
	return SymmetryOf(m, Group{})
}

// Group selects a subgroup of the symmetry group of a model: the
// permutations of every symmetric type except those in Off, which keep
// the first identity of each type in Fixed in place (its stabiliser).
// The zero value is the whole group.
type Group struct {
	Off   []*spec.Type // types not permuted
	Fixed []*spec.Type // types whose first identity stays in place
}

// SymmetryOf is [Symmetry] for the subgroup g: the returned function maps
// a state to the smallest state of its orbit under g (exactly one state
// per orbit of g). It returns nil, nil when g permutes no slot.
func SymmetryOf(m *spec.Model, g Group) (verdict.CanonFunc, error) {
	c, err := newCanon(m, g)
	if err != nil || c == nil {
		return nil, err
	}
	return c.canonicalize, nil
}

// newCanon analyses m; nil when there is nothing to permute.
func newCanon(m *spec.Model, g Group) (*canon, error) {
	b := &builder{m: m, typeIdx: map[*spec.Type]int{}, off: g.Off}
	for _, v := range m.Vars {
		b.findTypes(v.Type)
	}
	for _, p := range m.Processes {
		if p.IndexType != nil {
			b.findTypes(p.IndexType)
		}
	}
	if len(b.types) == 0 {
		return nil, nil
	}
	c, err := b.build()
	if err != nil || c == nil {
		return c, err
	}
	c.pinned = make([]bool, len(b.types))
	for _, t := range g.Fixed {
		if i := b.symIndex(t); i >= 0 {
			c.pinned[i] = true
			c.anyPinned = true
		}
	}
	return c, nil
}

// Canon is the canonicalisation of [SymmetryOf] that can also report the
// permutation it applies.
type Canon struct{ c *canon }

// NewCanon returns the canonicalisation for the subgroup g of m's
// symmetry group, or nil when g permutes no slot.
func NewCanon(m *spec.Model, g Group) (*Canon, error) {
	c, err := newCanon(m, g)
	if err != nil || c == nil {
		return nil, err
	}
	return &Canon{c}, nil
}

// Func returns the canonicalisation as a checker hook.
func (k *Canon) Func() verdict.CanonFunc { return k.c.canonicalize }

// Types returns the permuted types, in the order of the perm argument
// of [Canon.Perm].
func (k *Canon) Types() []*spec.Type { return slices.Clone(k.c.types) }

// Perm rewrites s into its canonical form, like Func, and writes the
// permutation π it applied into perm: perm[t][i] = π(i) for the t-th type
// of Types (identity i of s is identity π(i) of the result). perm must
// have one slice per type, each as long as the type is large.
func (k *Canon) Perm(s []int64, perm [][]int32) { k.c.canonicalizePerm(s, perm) }

// Swap writes into dst the state s with identities a and b of type t
// exchanged, and reports false (leaving dst alone) when t is not one of
// the permuted types. dst and s must not overlap.
func (k *Canon) Swap(dst, s []int64, t *spec.Type, a, b int) bool {
	ti := slices.Index(k.c.types, t)
	if ti < 0 {
		return false
	}
	copy(dst, s)
	c := k.c
	for _, d32 := range c.relevant {
		d := int(d32)
		dst[d] = c.swapped(s, ti, int32(a), int32(b), d)
	}
	return true
}

type builder struct {
	m       *spec.Model
	off     []*spec.Type // types left out of the group
	types   []*spec.Type
	typeIdx map[*spec.Type]int
	c       *canon
	classes map[string]int
	class   []uint64 // per slot, a seed for its class
	coords  [][]coordTmp
}

type coordTmp struct{ typ, val, stride int32 }

// findTypes records the symmetric types (of two or more identities) in t.
func (b *builder) findTypes(t *spec.Type) {
	switch t.Kind {
	case spec.SymmetricKind:
		if _, ok := b.typeIdx[t]; !ok && t.Size() >= 2 && !slices.Contains(b.off, t) {
			b.typeIdx[t] = len(b.types)
			b.types = append(b.types, t)
		}
	case spec.ArrayKind:
		b.findTypes(t.Index)
		b.findTypes(t.Elem)
	case spec.SetKind:
		b.findTypes(t.Elem)
	case spec.RecordKind:
		for _, f := range t.Fields {
			b.findTypes(f.Type)
		}
	}
}

func (b *builder) symIndex(t *spec.Type) int {
	if t == nil || t.Kind != spec.SymmetricKind {
		return -1
	}
	if i, ok := b.typeIdx[t]; ok {
		return i
	}
	return -1
}

func (b *builder) build() (*canon, error) {
	m := b.m
	n := len(m.Slots)
	c := &canon{
		n:     n,
		vkind: make([]uint8, n),
		vtyp:  make([]int32, n),
	}
	b.class = make([]uint64, n)
	c.types = b.types
	for _, t := range b.types {
		c.sizes = append(c.sizes, int(t.Size()))
	}
	b.c = c
	b.classes = map[string]int{}
	b.coords = make([][]coordTmp, n)
	seen := make([]bool, n)

	// Family locals: instance i of a family indexed by a symmetric type
	// is a coordinate; the copies of one local must be evenly spaced.
	type famKey struct{ fam, local string }
	fams := map[famKey][]*spec.Var{}
	for _, v := range m.Vars {
		if v.Process < 0 {
			continue
		}
		p := m.Processes[v.Process]
		if b.symIndex(p.IndexType) < 0 {
			continue
		}
		k := famKey{v.Family, v.Local}
		inst := fams[k]
		if inst == nil {
			inst = make([]*spec.Var, p.IndexType.Size())
			fams[k] = inst
		}
		if v.Family != p.Family || v.Index != p.Index || v.Local == "" {
			return nil, fmt.Errorf("reduce: local %s: its family, index or name is not its process's", v.Name)
		}
		if v.Index < 0 || v.Index >= int64(len(inst)) || inst[v.Index] != nil {
			return nil, fmt.Errorf("reduce: family %s: unexpected instance %d of local %s", v.Family, v.Index, v.Name)
		}
		inst[v.Index] = v
	}
	for vi, v := range m.Vars {
		var cs []coordTmp
		key := "v" + strconv.Itoa(vi)
		if v.Process >= 0 {
			p := m.Processes[v.Process]
			if t := b.symIndex(p.IndexType); t >= 0 {
				inst := fams[famKey{v.Family, v.Local}]
				for i, w := range inst {
					if w == nil {
						return nil, fmt.Errorf("reduce: family %s: instance %d of local %s missing", p.Family, i, v.Local)
					}
					if w.Type.Width != inst[0].Type.Width {
						return nil, fmt.Errorf("reduce: family %s: local %s differs between instances", p.Family, v.Local)
					}
				}
				stride := inst[1].Slot - inst[0].Slot
				for i, w := range inst {
					if w.Slot != inst[0].Slot+i*stride {
						return nil, fmt.Errorf("reduce: family %s: copies of local %s are not evenly spaced", p.Family, v.Local)
					}
				}
				cs = append(cs, coordTmp{int32(t), int32(p.Index), int32(stride)})
				key = "f" + p.Family + "." + v.Local
			}
		}
		b.walk(v.Type, v.Slot, cs, key, seen)
	}
	for d := range n {
		if !seen[d] {
			return nil, fmt.Errorf("reduce: slot %d belongs to no variable", d)
		}
	}
	// Flatten.
	c.coordStart = make([]int32, n+1)
	c.rows = make([][][]int32, len(b.types))
	c.valueSlots = make([][]int32, len(b.types))
	for t, size := range c.sizes {
		c.rows[t] = make([][]int32, size)
	}
	for d := range n {
		c.coordStart[d] = int32(len(c.coordTyp))
		for _, ct := range b.coords[d] {
			c.coordTyp = append(c.coordTyp, ct.typ)
			c.coordVal = append(c.coordVal, ct.val)
			c.coordStr = append(c.coordStr, ct.stride)
			c.coordSeed = append(c.coordSeed, machine.Mix(b.class[d]+uint64(len(c.coordStr)-1-int(c.coordStart[d]))*tagRow)|1)
			if r := c.rows[ct.typ][ct.val]; len(r) == 0 || r[len(r)-1] != int32(d) {
				c.rows[ct.typ][ct.val] = append(r, int32(d))
			}
		}
		tag := uint64(tagRef)
		if c.vkind[d] == valSet {
			tag = tagMember
		}
		c.refSeed = append(c.refSeed, machine.Mix(b.class[d]+tag)|1)
		if c.vkind[d] != valPlain {
			c.valueSlots[c.vtyp[d]] = append(c.valueSlots[c.vtyp[d]], int32(d))
		}
		if len(b.coords[d]) > 0 || c.vkind[d] != valPlain {
			c.relevant = append(c.relevant, int32(d))
		}
		if len(b.coords[d]) > 0 && c.vkind[d] != valPlain {
			c.linked = append(c.linked, int32(d))
		}
	}
	c.coordStart[n] = int32(len(c.coordTyp))
	if len(c.relevant) == 0 {
		return nil, nil // e.g. a family indexed by a symmetric type, without locals
	}
	c.pool.New = func() any { return c.newScratch() }
	return c, nil
}

// walk describes the slots of a value of type t at slot base. path is the
// slot's class key: its variable (or family local) and its non-symmetric
// indexes and fields, so that a permutation maps a slot to a slot of the
// same class.
func (b *builder) walk(t *spec.Type, base int, cs []coordTmp, path string, seen []bool) {
	c := b.c
	switch t.Kind {
	case spec.ArrayKind:
		st := b.symIndex(t.Index)
		for i := int64(0); i < t.Index.Size(); i++ {
			at := base + int(i)*t.Elem.Width
			if st >= 0 {
				ncs := append(cs[:len(cs):len(cs)], coordTmp{int32(st), int32(i), int32(t.Elem.Width)})
				b.walk(t.Elem, at, ncs, path+"[*]", seen)
			} else {
				b.walk(t.Elem, at, cs, path+"["+strconv.FormatInt(i, 10)+"]", seen)
			}
		}
	case spec.RecordKind:
		if t.Seq {
			c.markSeq(t, base)
		}
		for _, f := range t.Fields {
			b.walk(f.Type, base+f.Offset, cs, path+"."+f.Name, seen)
		}
	default:
		seen[base] = true
		b.coords[base] = cs
		c.vtyp[base] = -1
		switch {
		case t.Kind == spec.SymmetricKind && b.symIndex(t) >= 0:
			c.vkind[base] = valSym
			c.vtyp[base] = int32(b.symIndex(t))
		case t.Kind == spec.SetKind && b.symIndex(t.Elem) >= 0:
			c.vkind[base] = valSet
			c.vtyp[base] = int32(b.symIndex(t.Elem))
		}
		id, ok := b.classes[path]
		if !ok {
			id = len(b.classes)
			b.classes[path] = id
		}
		b.class[base] = machine.Mix(uint64(id)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019)
	}
}

func (c *canon) newScratch() *scratch {
	s := &scratch{best: make([]int64, c.n)}
	for _, n := range c.sizes {
		s.sig = append(s.sig, make([]uint64, n))
		s.sig2 = append(s.sig2, make([]uint64, n))
		s.order = append(s.order, make([]int32, n))
		s.fwd = append(s.fwd, make([]int32, n))
	}
	return s
}

// Signature tags, mixed into the seeds so that different roles of a slot
// get different seeds.
const (
	tagRow    = 0x1000
	tagRef    = 0x5000
	tagMember = 0x6000
	tagDiag   = 0x7000
)

// canonicalize rewrites s into its canonical representative.
//
// Exactness. sig(s, i) is a signature of identity i in state s such that
// sig(π(s), π(i)) = sig(s, i) for every permutation π of the group: it
// sums (a commutative, hence order-free, combination) contributions of
// the slots indexed by i and of the slots that hold i, each made of a
// seed for the slot's class (invariant: a permutation maps a slot to one
// of the same class) and a permutation-invariant abstraction of the
// value (identities of the same type reduced to "equals i" or not, other
// symmetric values to a constant, sets of identities to their cardinality
// and whether they hold i). Let P(s) be the permutations π that send the
// identities, sorted by signature, to 0, 1, 2, ... in that order (ties in
// any order). Then P(σ(s)) = P(s)·σ⁻¹, so {π(s) : π ∈ P(s)} is the same
// set for every state of an orbit, and its lexicographic minimum, which
// this function returns, is one state per orbit. Signature collisions only
// make ties larger (more candidates), never wrong. Two tied identities
// whose transposition fixes s ("twins") need not be tried in both orders:
// πτ(s) = π(s), so only one assignment per twin class is enumerated.
func (c *canon) canonicalize(s []int64) { c.canonicalizePerm(s, nil) }

// canonicalizePerm is canonicalize that also writes the permutation it
// applied into perm (perm[t][i] = π(i) for the t-th permuted type), when
// perm is not nil.
func (c *canon) canonicalizePerm(s []int64, perm [][]int32) {
	sc := c.pool.Get().(*scratch)
	c.signatures(s, sc)
	c.pin(sc)
	single := c.prepare(s, sc)
	for round := 0; round < refineRounds && !single && len(c.linked) > 0; round++ {
		c.refine(s, sc)
		c.pin(sc)
		single = c.prepare(s, sc)
	}
	c.applyAll(s, sc)
	if perm != nil {
		for t := range perm {
			copy(perm[t], sc.fwd[t])
		}
	}
	if !single {
		for c.nextCandidate(sc) {
			if c.applyMin(s, sc) && perm != nil {
				for t := range perm {
					copy(perm[t], sc.fwd[t])
				}
			}
		}
	}
	best := sc.best
	for _, d := range c.relevant {
		s[d] = best[d]
	}
	c.pool.Put(sc)
}

// pin gives the first identity of each pinned type the signature 0 and
// every other identity a non-zero one, so that the sort keeps it first
// and every candidate permutation fixes it. Both rewrites depend only on
// the signature, so the signatures stay invariant under the stabiliser.
func (c *canon) pin(sc *scratch) {
	if !c.anyPinned {
		return
	}
	for t, on := range c.pinned {
		if !on {
			continue
		}
		sig := sc.sig[t]
		for i := 1; i < len(sig); i++ {
			if sig[i] == 0 {
				sig[i] = 1
			}
		}
		sig[0] = 0
	}
}

// signatures computes sc.sig for every type: per identity, the sum over
// the slots indexed by it of (slot seed × abstract value), plus a seed per
// slot that holds it. The seeds are random-looking odd constants, one per
// slot class and coordinate position, so the sum is permutation-invariant
// and, in practice, separates different rows.
func (c *canon) signatures(s []int64, sc *scratch) {
	for t := range sc.sig {
		clear(sc.sig[t])
	}
	for _, d32 := range c.relevant {
		d := int(d32)
		if c.dead(s, d) {
			continue
		}
		v := s[d]
		vk := c.vkind[d]
		vt := c.vtyp[d]
		lo, hi := c.coordStart[d], c.coordStart[d+1]
		for k := lo; k < hi; k++ {
			t := c.coordTyp[k]
			i := c.coordVal[k]
			var a uint64
			switch {
			case vk == valPlain:
				a = uint64(v) + 1
			case vk == valSym && vt == t:
				a = 2
				if v == int64(i) {
					a = 1
				}
			case vk == valSym:
				a = 3
			case vk == valSet && vt == t:
				a = uint64(bits.OnesCount64(uint64(v)))<<1 | uint64(v>>i&1) + 1
			default: // a set of another type
				a = uint64(bits.OnesCount64(uint64(v))) + 1
			}
			if hi-lo > 1 {
				// Several coordinates: slots of the same class add up,
				// so make the value non-linear, with the diagonal (other
				// coordinates of the same type equal to i) folded in.
				for k2 := lo; k2 < hi; k2++ {
					if k2 != k && c.coordTyp[k2] == t && c.coordVal[k2] == i {
						a += tagDiag * uint64(k2-lo+1)
					}
				}
				a = machine.Mix(a)
			}
			sc.sig[t][i] += c.coordSeed[k] * a
		}
		switch vk {
		case valSym:
			sc.sig[vt][v] += c.refSeed[d]
		case valSet:
			h := c.refSeed[d] * uint64(bits.OnesCount64(uint64(v))+1)
			for m := uint64(v); m != 0; m &= m - 1 {
				sc.sig[vt][bits.TrailingZeros64(m)] += h
			}
		}
	}
}

// refineRounds bounds the refinement of signatures when a tie is left
// between identities that are not twins.
const refineRounds = 2

// refine replaces the signatures by finer ones, still invariant: a slot
// indexed by identity i that holds identity v (or a set) adds v's current
// signature to i's, and i's to v's, as colour refinement does on a graph.
// Only the linked slots contribute, on top of the current signatures.
func (c *canon) refine(s []int64, sc *scratch) {
	for t := range sc.sig {
		copy(sc.sig2[t], sc.sig[t])
	}
	for _, d32 := range c.linked {
		d := int(d32)
		if c.dead(s, d) {
			continue
		}
		v := s[d]
		u := c.vtyp[d]
		var val uint64 // the current signatures of what the slot holds
		if c.vkind[d] == valSym {
			val = sc.sig[u][v]
		} else {
			for m := uint64(v); m != 0; m &= m - 1 {
				val += machine.Mix(sc.sig[u][bits.TrailingZeros64(m)])
			}
		}
		lo, hi := c.coordStart[d], c.coordStart[d+1]
		for k := lo; k < hi; k++ {
			t, i := c.coordTyp[k], c.coordVal[k]
			sc.sig2[t][i] += c.coordSeed[k] * machine.Mix(val+tagRef)
			back := c.refSeed[d] * machine.Mix(sc.sig[t][i]+uint64(k-lo)*tagRow)
			if c.vkind[d] == valSym {
				sc.sig2[u][v] += back
			} else {
				for m := uint64(v); m != 0; m &= m - 1 {
					sc.sig2[u][bits.TrailingZeros64(m)] += back
				}
			}
		}
	}
	sc.sig, sc.sig2 = sc.sig2, sc.sig
}

// prepare sorts the identities of every type by signature, finds the tie
// groups and their twin classes, and sets up the first candidate. It
// reports whether that candidate is the only one.
func (c *canon) prepare(s []int64, sc *scratch) bool {
	sc.groups = sc.groups[:0]
	single := true
	for t, sig := range sc.sig {
		order := sc.order[t]
		for i := range order {
			order[i] = int32(i)
		}
		// insertion sort by (signature, identity): stable and allocation free
		for i := 1; i < len(order); i++ {
			x := order[i]
			j := i
			for j > 0 && sig[order[j-1]] > sig[x] {
				order[j] = order[j-1]
				j--
			}
			order[j] = x
		}
		for lo := 0; lo < len(order); {
			hi := lo + 1
			for hi < len(order) && sig[order[hi]] == sig[order[lo]] {
				hi++
			}
			if hi-lo >= 2 {
				if !c.addGroup(s, sc, t, lo, hi) {
					single = false
				}
			}
			lo = hi
		}
	}
	for t := range sc.order {
		for j, i := range sc.order[t] {
			sc.fwd[t][i] = int32(j)
		}
	}
	return single
}

// addGroup records the tie group order[lo:hi] of type t with its twin
// classes, and reports whether all its members are twins (one candidate).
func (c *canon) addGroup(s []int64, sc *scratch, t, lo, hi int) bool {
	if cap(sc.groups) > len(sc.groups) {
		sc.groups = sc.groups[:len(sc.groups)+1]
	} else {
		sc.groups = append(sc.groups, group{})
	}
	g := &sc.groups[len(sc.groups)-1]
	g.typ, g.lo = t, lo
	g.members = append(g.members[:0], sc.order[t][lo:hi]...)
	g.labels = g.labels[:0]
	g.first = g.first[:0]
	// Twin classes: compare each member with each class representative.
	reps := g.byClass[:0] // temporarily: representatives
	for _, mbr := range g.members {
		lab := -1
		for r, rep := range reps {
			if c.fixesSwap(s, t, rep, mbr) {
				lab = r
				break
			}
		}
		if lab < 0 {
			lab = len(reps)
			reps = append(reps, mbr)
		}
		g.labels = append(g.labels, int32(lab))
	}
	nclass := len(reps)
	// byClass: members grouped by class, ascending inside a class.
	g.byClass = reps[:0]
	for cl := range nclass {
		g.first = append(g.first, int32(len(g.byClass)))
		for k, mbr := range g.members {
			if int(g.labels[k]) == cl {
				g.byClass = append(g.byClass, mbr)
			}
		}
	}
	g.first = append(g.first, int32(len(g.byClass)))
	if nclass == 1 {
		// One assignment: keep the order as sorted (ascending identities).
		sc.groups = sc.groups[:len(sc.groups)-1]
		return true
	}
	// labels: the smallest arrangement of the class multiset (sorted).
	k := 0
	for cl := range nclass {
		for range g.first[cl+1] - g.first[cl] {
			g.labels[k] = int32(cl)
			k++
		}
	}
	c.assign(sc, g)
	return false
}

// assign writes the arrangement g.labels into the order of g's type: the
// position with label l gets the next member of class l.
func (c *canon) assign(sc *scratch, g *group) {
	order := sc.order[g.typ]
	var cnt [64]int32
	var counts []int32
	if len(g.first) <= len(cnt) {
		counts = cnt[:len(g.first)-1]
	} else {
		counts = make([]int32, len(g.first)-1)
	}
	for p, l := range g.labels {
		order[g.lo+p] = g.byClass[g.first[l]+counts[l]]
		counts[l]++
	}
}

// nextCandidate advances the enumeration (an odometer over the groups,
// each stepping through the distinct arrangements of its classes) and
// reports whether there is one more candidate.
func (c *canon) nextCandidate(sc *scratch) bool {
	for gi := range sc.groups {
		g := &sc.groups[gi]
		more := nextPermutation(g.labels)
		c.assign(sc, g)
		t := g.typ
		for j := g.lo; j < g.lo+len(g.labels); j++ {
			sc.fwd[t][sc.order[t][j]] = int32(j)
		}
		if more {
			return true
		}
		// wrapped around to the smallest arrangement: carry
	}
	return false
}

// nextPermutation rearranges a into the next lexicographic arrangement of
// its multiset; at the last one it restores the first and returns false.
func nextPermutation(a []int32) bool {
	i := len(a) - 2
	for i >= 0 && a[i] >= a[i+1] {
		i--
	}
	if i < 0 {
		reverse(a)
		return false
	}
	j := len(a) - 1
	for a[j] <= a[i] {
		j--
	}
	a[i], a[j] = a[j], a[i]
	reverse(a[i+1:])
	return true
}

func reverse(a []int32) {
	for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
		a[i], a[j] = a[j], a[i]
	}
}

// fixesSwap reports whether exchanging identities a and b of type t leaves
// s unchanged.
func (c *canon) fixesSwap(s []int64, t int, a, b int32) bool {
	return c.fixesSwapOn(s, t, a, b, c.rows[t][a]) &&
		c.fixesSwapOn(s, t, a, b, c.rows[t][b]) &&
		c.fixesSwapOn(s, t, a, b, c.valueSlots[t])
}

// fixesSwapOn reports whether exchanging a and b leaves the slots ds of s
// unchanged.
func (c *canon) fixesSwapOn(s []int64, t int, a, b int32, ds []int32) bool {
	for _, d32 := range ds {
		if c.swapped(s, t, a, b, int(d32)) != s[d32] {
			return false
		}
	}
	return true
}

// swapped returns slot d of the state s with identities a and b of type t
// exchanged: the slot it comes from, with its value mapped.
func (c *canon) swapped(s []int64, t int, a, b int32, d int) int64 {
	t32 := int32(t)
	src := d
	for k := c.coordStart[d]; k < c.coordStart[d+1]; k++ {
		if c.coordTyp[k] != t32 {
			continue
		}
		switch c.coordVal[k] {
		case a:
			src += int(b-a) * int(c.coordStr[k])
		case b:
			src += int(a-b) * int(c.coordStr[k])
		}
	}
	if c.dead(s, src) {
		return c.seqZero[d]
	}
	v := s[src]
	if c.vtyp[d] == t32 {
		switch c.vkind[d] {
		case valSym:
			if v == int64(a) {
				v = int64(b)
			} else if v == int64(b) {
				v = int64(a)
			}
		case valSet:
			ba, bb := v>>a&1, v>>b&1
			v = v&^(1<<a|1<<b) | ba<<b | bb<<a
		}
	}
	return v
}

// value returns slot d of the current candidate π(s): the slot it comes
// from, with its value mapped.
func (c *canon) value(s []int64, sc *scratch, d int) int64 {
	src := d
	for k := c.coordStart[d]; k < c.coordStart[d+1]; k++ {
		i := c.coordVal[k]
		src += int(sc.order[c.coordTyp[k]][i]-i) * int(c.coordStr[k])
	}
	if c.dead(s, src) {
		return c.seqZero[d]
	}
	v := s[src]
	switch c.vkind[d] {
	case valSym:
		v = int64(sc.fwd[c.vtyp[d]][v])
	case valSet:
		fwd := sc.fwd[c.vtyp[d]]
		r := int64(0)
		for m := uint64(v); m != 0; m &= m - 1 {
			r |= 1 << fwd[bits.TrailingZeros64(m)]
		}
		v = r
	}
	return v
}

// applyAll writes the current candidate into sc.best.
func (c *canon) applyAll(s []int64, sc *scratch) {
	best := sc.best
	for _, d := range c.relevant {
		best[d] = c.value(s, sc, int(d))
	}
}

// applyMin replaces sc.best with the current candidate if it is smaller,
// and reports whether it did.
func (c *canon) applyMin(s []int64, sc *scratch) bool {
	best := sc.best
	rel := c.relevant
	for x, d32 := range rel {
		d := int(d32)
		v := c.value(s, sc, d)
		if v > best[d] {
			return false
		}
		if v < best[d] {
			best[d] = v
			for _, e := range rel[x+1:] {
				best[e] = c.value(s, sc, int(e))
			}
			return true
		}
	}
	return false
}

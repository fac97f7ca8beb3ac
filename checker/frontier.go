package checker

import (
	"iter"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wrapcheck/wrapcheck/machine"
)

// level is the explorer's frontier and the level being built from it.
// The frontier is nfront states at positions 0..nfront-1, by their store
// indexes in frontier (nil under HashCompact), at depth depth; maxDepth
// is the deepest level that has states. During a level the new states are
// stored at indexes levelStart.. less the holes (the workers' index
// blocks' unused ends), and while pending their links hold their
// tie-break keys (the smallest of the level) instead of their parents'
// indexes; nextFrontier sorts them into the next frontier (pairs, in
// buckets, the buckets' starts in buckets; spare is the frontier array
// it reuses; segs the index ranges) and turns the keys into links.
type level struct {
	frontier   []uint32 // store indexes; nil under HashCompact
	nfront     int      // states in the frontier
	spare      []uint32
	pairs      []uint64 // next level, bucketed and sorted by key (packEntry)
	buckets    []int
	levelStart uint32
	pending    bool // links of states >= levelStart still hold keys
	depth      int
	maxDepth   int

	// The store indexes of the level being built: those the workers'
	// index blocks left unused (lo<<32 | hi), and the ranges of the
	// others (lo, hi pairs), for nextFrontier.
	holes []uint64
	segs  []uint32
}

// An entry is a state of the next level in one word: its tie-break key,
// with the parent's frontier position relative to the first position of
// its bucket (8 bits: a batch has at most 256 positions), and its store
// index. Sorted as integers, a bucket's entries are in key order.
func packEntry(rel int, ord uint64, idx uint32) uint64 {
	return uint64(rel)<<56 | ord<<32 | uint64(idx)
}

func unpackEntry(x uint64) (rel int, ord uint64, idx uint32) {
	return int(x >> 56), x >> 32 & ordMax, uint32(x)
}

// nextFrontier builds the next level: the states stored during this
// level (indexes levelStart.., less the holes the workers' index blocks
// left), in the order of their minimal keys, and turns the keys into
// parent links. The keys are bucketed by the batch of their parent (a
// counting sort over a sequential scan of the links), then each bucket is
// sorted, in parallel.
func (e *explorer) nextFrontier() {
	segs := e.levelSegments()
	nn := 0
	for j := 0; j < len(segs); j += 2 {
		nn += int(segs[j+1] - segs[j])
	}
	if !e.parallel && e.fps == nil && e.inKeyOrder(segs, nn) {
		return
	}
	nb := e.nbatch
	bk := append(e.buckets[:0], make([]int, nb+1)...)
	resize(&e.pairs, nn)
	pairs := e.pairs
	if len(e.workers) > 1 && nn >= parallelBucketMin {
		e.bucketParallel(segs, nn, bk, pairs)
	} else {
		e.countBuckets(segs, bk[1:])
		for b := 1; b <= nb; b++ {
			bk[b] += bk[b-1]
		}
		e.placeBuckets(segs, append([]int(nil), bk[:nb]...), pairs)
	}
	compact := e.fps != nil
	var next []uint32 // under HashCompact, the level is in e.vecs
	if !compact {
		resize(&e.spare, nn)
		next, e.spare = e.spare, nil
	}
	var gbase int64
	if compact {
		gbase = e.promoted.Load()
	}
	e.parallelFor(nb, func(slot, b int) {
		ps := pairs[bk[b]:bk[b+1]]
		slices.Sort(ps)
		if compact {
			e.spillStates(slot, gbase, bk[b], b*e.batch, ps)
			return
		}
		for j, x := range ps {
			rel, _, idx := unpackEntry(x)
			next[bk[b]+j] = idx
			*e.store.Link(idx) = uint64(e.frontier[b*e.batch+rel])
		}
	})
	if compact {
		e.promote(nn)
	}
	e.buckets = bk
	e.advance(next, nn)
}

// advance makes next, of nn states, the frontier (nil under
// HashCompact: the level is in e.vecs): the level is built.
func (e *explorer) advance(next []uint32, nn int) {
	e.pending = false
	e.spare, e.frontier, e.nfront = e.frontier, next, nn
	e.depth++
	if len(next) > 0 {
		e.maxDepth = e.depth
	}
}

// inKeyOrder builds the next level as nextFrontier does when one worker
// expanded this one: its states were then stored in the order of their
// keys (parents in frontier order, each one's successors in ordinal
// order, a duplicate never lowering a key), so their order is that of
// their indexes (the sort's tie-break between equal keys) and no bucket
// or sort is needed. It checks that order first, reading the keys, and
// builds nothing (false) where it does not hold; then it writes the
// level and turns the keys into parent links.
func (e *explorer) inKeyOrder(segs []uint32, nn int) bool {
	stride := e.store.Stride()
	prev := uint64(0)
	for _, recs := range linkRuns(e.store, segs) {
		for k := 0; k < len(recs); k += stride {
			if recs[k] < prev {
				return false
			}
			prev = recs[k]
		}
	}
	resize(&e.spare, nn)
	next := e.spare
	at := 0
	for lo, recs := range linkRuns(e.store, segs) {
		for k, idx := 0, lo; k < len(recs); k, idx = k+stride, idx+1 {
			next[at] = idx
			recs[k] = uint64(e.frontier[recs[k]>>ordBits])
			at++
		}
	}
	e.advance(next, nn)
	return true
}

// countBuckets adds to h[b], for every state of the index ranges rs (lo,
// hi pairs), one when its parent is in frontier batch b.
func (e *explorer) countBuckets(rs []uint32, h []int) {
	stride, bm := e.store.Stride(), e.batchMul
	for _, recs := range linkRuns(e.store, rs) {
		for k := 0; k < len(recs); k += stride {
			h[batchOf(int(recs[k]>>ordBits), bm)]++
		}
	}
}

// placeBuckets writes the entry of every state of the index ranges rs
// (lo, hi pairs) to pairs at fill[b], b its parent's frontier batch, and
// advances fill[b]: the states of a bucket in the order of rs.
func (e *explorer) placeBuckets(rs []uint32, fill []int, pairs []uint64) {
	stride, bm, batch := e.store.Stride(), e.batchMul, e.batch
	for lo, recs := range linkRuns(e.store, rs) {
		for k, idx := 0, lo; k < len(recs); k, idx = k+stride, idx+1 {
			key := recs[k]
			p := int(key >> ordBits)
			b := batchOf(p, bm)
			pairs[fill[b]] = packEntry(p-b*batch, key&ordMax, idx)
			fill[b]++
		}
	}
}

// linkRuns yields, over the index ranges rs (lo, hi pairs), each run of
// consecutive records that one chunk of st holds: the run's first index
// and its records, Stride words each, the link word first.
func linkRuns(st *machine.Store, rs []uint32) iter.Seq2[uint32, []uint64] {
	return func(yield func(uint32, []uint64) bool) {
		for j := 0; j < len(rs); j += 2 {
			for i := rs[j]; i < rs[j+1]; {
				recs, n := st.LinkRun(i, rs[j+1])
				if !yield(i, recs) {
					return
				}
				i += uint32(n)
			}
		}
	}
}

// batchMultiplier returns what batchOf multiplies by for batches of
// batch (1..256) positions: ⌊(2^64−1)/batch⌋ + 1, or 0 for batch 1.
func batchMultiplier(batch int) uint64 {
	if batch <= 1 {
		return 0
	}
	return ^uint64(0)/uint64(batch) + 1
}

// batchOf returns p / batch, the frontier batch of position p (below
// 2^32), by a multiply with mul = batchMultiplier(batch) instead of a
// division, which takes tens of cycles, twice per state of a level in
// nextFrontier: with mul = ⌊2^64/batch⌋ + 1 (2^64/batch for a power of
// two), mul·batch − 2^64 = ε lies in [0, batch), so p·mul/2^64 =
// p/batch + p·ε/(batch·2^64), where p·ε < 2^40 keeps the excess below
// 1/batch, too little to reach the next integer.
func batchOf(p int, mul uint64) int {
	if mul == 0 {
		return p
	}
	hi, _ := bits.Mul64(uint64(p), mul)
	return int(hi)
}

// parallelBucketMin is the fewest states of a level whose bucketing
// nextFrontier splits between the workers.
const parallelBucketMin = 1 << 16

// bucketParallel is nextFrontier's counting sort of the level's nn states
// (the index ranges segs) into the buckets of their parents' batches, in
// parts of consecutive states counted and then placed by the workers at
// once: the starts of the buckets go to bk (nb+1 entries, zeroed), the
// entries to pairs, each bucket in the order of the states' indexes, as
// the one-pass loop places them (the buckets are sorted after). The two
// scans of every state's link are otherwise the one part of a level that
// one core does alone.
func (e *explorer) bucketParallel(segs []uint32, nn int, bk []int, pairs []uint64) {
	nb := e.nbatch
	np := 8 * len(e.workers)
	// part returns the index ranges of the states at positions
	// p*nn/np..(p+1)*nn/np of the level (in index order), lo, hi pairs.
	part := func(p int, out []uint32) []uint32 {
		lo, hi := p*nn/np, (p+1)*nn/np
		out = out[:0]
		at := 0
		for j := 0; j < len(segs) && at < hi; j += 2 {
			n := int(segs[j+1] - segs[j])
			a, b := max(lo, at), min(hi, at+n)
			if a < b {
				out = append(out, segs[j]+uint32(a-at), segs[j]+uint32(b-at))
			}
			at += n
		}
		return out
	}
	hist := make([]int, np*nb)
	e.parallelFor(np, func(_, p int) {
		h := hist[p*nb : (p+1)*nb]
		e.countBuckets(part(p, make([]uint32, 0, 2*len(e.workers)+2)), h)
	})
	// Bucket b's entries: part 0's first, then part 1's, and so on.
	run := 0
	for b := range nb {
		bk[b] = run
		for p := range np {
			c := hist[p*nb+b]
			hist[p*nb+b] = run
			run += c
		}
	}
	bk[nb] = run
	e.parallelFor(np, func(_, p int) {
		fill := hist[p*nb : (p+1)*nb]
		e.placeBuckets(part(p, make([]uint32, 0, 2*len(e.workers)+2)), fill, pairs)
	})
}

// levelSegments returns the ranges of the store indexes of the states
// stored during this level, levelStart..End less the holes (FreeLink)
// that the workers' index blocks left: lo, hi pairs, ascending.
func (e *explorer) levelSegments() []uint32 {
	slices.Sort(e.holes)
	segs := e.segs[:0]
	lo := e.levelStart
	for _, h := range e.holes {
		segs = append(segs, lo, uint32(h>>32))
		lo = uint32(h)
	}
	e.segs = append(segs, lo, e.store.End())
	return e.segs
}

// resize sets *s to a slice of length n, reusing its array unless that
// is too small or more than twice too large: a level's buffers follow the
// level's size down as well as up, so that the memory of the widest level
// is not held to the end of the search.
func resize[T any](s *[]T, n int) {
	c := cap(*s)
	if c >= n && c <= 2*n+1024 {
		*s = (*s)[:n]
		return
	}
	if c > 1<<20 {
		// Collect the array now: the new one should not pile onto it,
		// when the search counts every byte.
		*s = nil
		runtime.GC()
	}
	*s = make([]T, n, n+n/4)
}

// frontierIdx returns the store index of the state at frontier position
// p (0 under HashCompact, whose store holds only the level being built).
func (e *explorer) frontierIdx(p int) uint32 {
	if e.fps != nil {
		return 0
	}
	return e.frontier[p]
}

// parallelFor calls f(slot, 0..n-1) from up to one goroutine per
// worker; slot (< len(e.workers)) numbers the calling goroutine.
func (e *explorer) parallelFor(n int, f func(slot, i int)) {
	nw := min(len(e.workers), n)
	if nw <= 1 || n < 8 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for slot := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(slot, i)
			}
		}()
	}
	wg.Wait()
}

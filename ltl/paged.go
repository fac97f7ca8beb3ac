package ltl

import "unsafe"

// Some of the product's arrays of one entry per node or per system
// state grow with the product, whose size is not known ahead. Grown by
// append, each growth copies the whole array into a new one a quarter
// larger: about four copies of the final array in all, which on TLA+'s
// CoffeeCan at 10^7 nodes was a fifth of the CPU time (the copies run at
// the memory's speed, not the caches'). A paged array grows by pages of
// pageLen entries instead and copies nothing. Its pages are arrays, so
// that an entry's place in its page needs no bounds check; reading an
// entry still costs a load more than in a slice, so the arrays read for
// every edge (the node index, the in-degrees) and for every node of every
// pass (the node's system and automaton states) stay slices: paged too,
// they cost 3.2% more instructions and 12-16% more time on the pipeline's
// properties (docs/impl.md, "Liveness memory"). Paged: the nodes' parents
// (read for traces), the initial states, the kept lists' offsets and the
// atom valuations.

const (
	pageBits = 12
	pageLen  = 1 << pageBits
	pageMask = pageLen - 1
)

// paged is an array in pages of pageLen entries.
type paged[T any] struct {
	pages []*[pageLen]T
	n     int
}

// len returns the number of entries.
func (a *paged[T]) len() int { return a.n }

// get returns entry i.
func (a *paged[T]) get(i uint32) T { return a.pages[i>>pageBits][i&pageMask] }

// at returns the address of entry i.
func (a *paged[T]) at(i uint32) *T { return &a.pages[i>>pageBits][i&pageMask] }

// push appends x.
func (a *paged[T]) push(x T) {
	if a.n&pageMask == 0 && a.n>>pageBits == len(a.pages) {
		a.pages = append(a.pages, new([pageLen]T))
	}
	a.pages[a.n>>pageBits][a.n&pageMask] = x
	a.n++
}

// extend appends zero entries up to n entries in all (none when there
// are that many).
func (a *paged[T]) extend(n int) {
	for len(a.pages)<<pageBits < n {
		a.pages = append(a.pages, new([pageLen]T)) // zero
	}
	a.n = max(a.n, n)
}

// copyTo copies the first len(dst) entries (at most len) to dst.
func (a *paged[T]) copyTo(dst []T) {
	for p, pg := range a.pages {
		o := p << pageBits
		if o >= len(dst) {
			break
		}
		copy(dst[o:], pg[:min(pageLen, a.n-o)])
	}
}

// slice returns a copy of the entries (tests).
func (a *paged[T]) slice() []T {
	s := make([]T, a.n)
	a.copyTo(s)
	return s
}

// bytes returns the bytes of the pages.
func (a *paged[T]) bytes() int64 {
	var z T
	return bytesOf(a.pages) + int64(len(a.pages))*pageLen*int64(unsafe.Sizeof(z))
}

// Package vmem keeps growable arrays of plain values (integers) in
// address space reserved from the operating system, so that an array
// grows without being copied. A large array that grows by reallocation
// is copied some four times over on its way to its final size (a
// quarter more each time), its fresh pages are zeroed by the runtime and
// faulted in twice, and the copy, a runtime.memmove the scheduler cannot
// preempt, keeps the collector's mark phase spinning until it ends. An
// array grown here keeps its address: growing it only moves the end of
// what is counted as in use, and the kernel supplies the zeroed pages at
// their first touch.
//
// The bytes counted in use by every Arena are [InUse]: the memory
// budget adds them to the Go heap's. Where address space cannot be
// reserved (not 64-bit Linux, an address-space limit, an overcommit
// policy that refuses) an Arena grows its arrays on the Go heap like
// [slices.Grow], and the program behaves the same, only slower.
package vmem

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Plain is the element types an Arena holds: values the collector need
// not scan, since it never looks into reserved memory.
type Plain interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// inUse is the bytes counted in use by all arenas.
var inUse atomic.Int64

// InUse returns the bytes counted in use by the arrays of every Arena
// not yet freed: the capacity they have grown to, not the address space
// reserved behind it.
func InUse() int64 { return inUse.Load() }

// An Arena holds arrays grown by [Grow] in reserved address space until
// [Arena.Free]. The zero value is ready to use, as [New]'s is; a nil
// *Arena reserves nothing, and its arrays grow on the Go heap.
type Arena struct {
	mu      sync.Mutex
	regions []region
	counted int64
}

// region is one reservation, the address space of one array, as the
// mapping returned it.
type region []byte

// New returns an arena that reserves address space for its arrays.
func New() *Arena { return &Arena{} }

// Reserve returns an empty array with room for n elements (growable by
// [Grow] to n without a copy), or, where n elements' address space cannot
// be reserved, nil: the array then grows on the Go heap. A nil arena
// reserves nothing.
func Reserve[T Plain](a *Arena, n int) []T {
	if a == nil || n <= 0 {
		return nil
	}
	var z T
	size := uintptr(n) * unsafe.Sizeof(z)
	if size/unsafe.Sizeof(z) != uintptr(n) {
		return nil
	}
	mem, err := reserve(size)
	if err != nil {
		return nil
	}
	a.mu.Lock()
	a.regions = append(a.regions, mem)
	a.mu.Unlock()
	// The capacity starts at zero: Grow moves it, counting what it adds.
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n)[:0:0]
}

// Grow returns s with room for at least n more elements, like
// [slices.Grow]. When s lies in a region of a (from [Reserve]) with that
// room, s keeps its address and its capacity grows in place by a
// sixteenth or growStep bytes at least, counted in [InUse]; the new
// elements beyond len(s) are zero provided s was never shortened.
// Otherwise s is grown on the Go heap.
func Grow[T Plain](a *Arena, s []T, n int) []T {
	if n <= cap(s)-len(s) {
		return s
	}
	if a != nil {
		if r, ok := a.regionOf(unsafe.Pointer(unsafe.SliceData(s))); ok {
			var z T
			es := unsafe.Sizeof(z)
			limit := len(r) / int(es)
			if need := len(s) + n; need <= limit {
				c := min(max(need, cap(s)+cap(s)/16, cap(s)+int(growStep/es)), limit)
				a.count(int64(c-cap(s)) * int64(es))
				return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(r))), c)[:len(s)]
			}
		}
	}
	return slices.Grow(s, n)
}

// Append appends x to s, grown by [Grow] in a when it is full.
func Append[T Plain](a *Arena, s []T, x T) []T {
	if len(s) == cap(s) {
		s = Grow(a, s, 1)
	}
	return append(s, x)
}

// growStep is the smallest step, in bytes, a reserved array's capacity
// grows by; past 16 times that it grows by a sixteenth. Growing costs no
// copy here, so the steps are small: the capacity counted, which is all
// that may be touched, stays within a sixteenth of the length.
const growStep = 64 << 10

// regionOf returns the region that starts at p (an array from Reserve
// keeps its region's start as its address, even at capacity zero).
func (a *Arena) regionOf(p unsafe.Pointer) (region, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.regions {
		if p == unsafe.Pointer(unsafe.SliceData(r)) {
			return r, true
		}
	}
	return nil, false
}

// count adds b bytes to the arena's and the process's in-use count.
func (a *Arena) count(b int64) {
	a.mu.Lock()
	a.counted += b
	a.mu.Unlock()
	inUse.Add(b)
}

// Free returns the arena's address space to the operating system and
// its bytes to [InUse]. No array of the arena may be used after: its
// memory is gone. Free on a nil arena, or twice, does nothing.
func (a *Arena) Free() {
	if a == nil {
		return
	}
	a.mu.Lock()
	regions, counted := a.regions, a.counted
	a.regions, a.counted = nil, 0
	a.mu.Unlock()
	for _, r := range regions {
		release(r)
	}
	inUse.Add(-counted)
}

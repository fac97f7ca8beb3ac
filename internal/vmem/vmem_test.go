package vmem

import (
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// TestGrowInPlace grows a reserved array element by element past several
// growth steps: where the reservation is granted it keeps its address,
// its new elements are zero, and InUse counts its capacity until Free.
func TestGrowInPlace(t *testing.T) {
	before := InUse()
	a := New()
	const n = 1 << 20
	s := Reserve[uint32](a, n)
	if s == nil {
		t.Skip("no address space reserved on this platform") // reserve_other.go
	}
	if len(s) != 0 || cap(s) != 0 {
		t.Fatalf("Reserve: len %d cap %d, want 0 0", len(s), cap(s))
	}
	start := unsafe.SliceData(s)
	for i := range n {
		if len(s) == cap(s) {
			s = Grow(a, s, 1)
			if unsafe.SliceData(s) != start {
				t.Fatalf("at %d elements the array moved", i)
			}
			for _, x := range s[len(s):cap(s)] {
				if x != 0 {
					t.Fatalf("at %d elements a new element is %d, want 0", i, x)
				}
			}
		}
		s = append(s, uint32(i)*3)
	}
	if got := InUse() - before; got != int64(cap(s))*4 {
		t.Errorf("InUse grew by %d bytes, want the capacity's %d", got, cap(s)*4)
	}
	for i, x := range s {
		if x != uint32(i)*3 {
			t.Fatalf("element %d is %d, want %d", i, x, i*3)
		}
	}
	a.Free()
	a.Free() // twice: nothing
	if got := InUse(); got != before {
		t.Errorf("InUse after Free %d, want %d", got, before)
	}
}

// TestGrowPastReservation grows an array past the room reserved for
// it: it moves to the Go heap with its elements, and later growth goes
// on there.
func TestGrowPastReservation(t *testing.T) {
	a := New()
	defer a.Free()
	s := Reserve[uint64](a, 1000)
	s = Grow(a, s, 1000)
	for i := range 1000 {
		s = append(s, uint64(i))
	}
	if s2 := Grow(a, s, 1); unsafe.SliceData(s2) == unsafe.SliceData(s) && cap(s2) <= 1000 {
		t.Fatalf("Grow past the reservation: capacity %d at the same address", cap(s2))
	} else {
		s = append(s2, 1000)
	}
	for i := range 5000 {
		s = append(Grow(a, s, 1), uint64(1001+i))
	}
	for i, x := range s {
		if x != uint64(i) {
			t.Fatalf("element %d is %d", i, x)
		}
	}
}

// TestGrowWithoutArena is slices.Grow for a nil arena, a nil slice and a
// slice of the heap.
func TestGrowWithoutArena(t *testing.T) {
	if s := Reserve[uint16](nil, 10); s != nil {
		t.Fatalf("Reserve on a nil arena: %v", s)
	}
	a := New()
	defer a.Free()
	heap := []uint16{1, 2, 3}
	for _, arena := range []*Arena{nil, a} {
		s := Grow(arena, slices.Clone(heap), 100)
		if cap(s)-len(s) < 100 || !slices.Equal(s, heap) {
			t.Errorf("Grow(%v, heap slice, 100): len %d cap %d %v", arena != nil, len(s), cap(s), s)
		}
		if s := Grow[uint16](arena, nil, 5); cap(s) < 5 {
			t.Errorf("Grow(%v, nil, 5): cap %d", arena != nil, cap(s))
		}
	}
	if s := Reserve[uint8](a, 0); s != nil {
		t.Errorf("Reserve of nothing: %v", s)
	}
}

// TestConcurrentArenas grows arrays of several arenas at once (the
// checks of a server): InUse is their sum while they live and back
// where it was after.
func TestConcurrentArenas(t *testing.T) {
	before := InUse()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := New()
			s := Reserve[uint32](a, 1<<16)
			for i := range 1 << 16 {
				s = append(Grow(a, s, 1), uint32(g+i))
			}
			if s[1<<15] != uint32(g+1<<15) {
				t.Errorf("arena %d: element %d is %d", g, 1<<15, s[1<<15])
			}
			a.Free()
		}()
	}
	wg.Wait()
	if got := InUse(); got != before {
		t.Errorf("InUse after every arena freed: %d, want %d", got, before)
	}
}

// TestReserveRefused asks for more address space than a 64-bit process
// has (2^47 bytes of user space on x86-64 and arm64) and for a size
// that overflows: Reserve returns nil, and the array grows on the heap.
func TestReserveRefused(t *testing.T) {
	a := New()
	defer a.Free()
	before := InUse()
	for _, n := range []int{1 << 46, 1<<62 + 1} {
		s := Reserve[uint64](a, n)
		if s != nil {
			t.Fatalf("Reserve of %d words: a reservation", n)
		}
		s = Grow(a, s, 10)
		s = append(s, 1, 2, 3)
		if len(s) != 3 || s[2] != 3 {
			t.Fatalf("the heap array: %v", s)
		}
	}
	if got := InUse(); got != before {
		t.Errorf("InUse moved by %d for arrays on the heap", got-before)
	}
}

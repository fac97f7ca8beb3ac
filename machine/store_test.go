package machine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStoreChunks checks that an arena chunk stays within its byte bound
// for wide vectors (a 4-state spec with a 200001-element bool array used
// to reserve 818 MiB at its first state, and --memory counted it), that
// narrow stores keep 32768 records a chunk, and that vectors written in
// several chunks read back intact.
func TestStoreChunks(t *testing.T) {
	tests := []struct {
		width     int
		wantShift uint
	}{
		{1, 15}, {15, 15}, {16, 14}, {3126, 7}, {1 << 20, 0},
	}
	for _, tt := range tests {
		s := NewStore(tt.width)
		if s.shift != tt.wantShift {
			t.Errorf("width %d: shift %d, want %d", tt.width, s.shift, tt.wantShift)
		}
		if chunk := int64(1<<s.shift) * int64(s.stride) * 8; chunk > maxChunkBytes && s.shift > 0 {
			t.Errorf("width %d: chunk of %d bytes", tt.width, chunk)
		}
		if s.limit < 1 || int64(len(s.chunks))<<s.shift < s.limit {
			t.Errorf("width %d: limit %d beyond the directory (%d chunks)", tt.width, s.limit, len(s.chunks))
		}
	}
	s := NewStore(3126)
	n := 3*(1<<s.shift) + 5 // four chunks
	for i := range n {
		vec := make([]uint64, s.width)
		vec[0], vec[s.width-1] = uint64(i), uint64(i*7)
		idx, isNew, err := s.Insert(vec, uint64(i))
		if err != nil || !isNew || idx != uint32(i) {
			t.Fatalf("insert %d: %d %v %v", i, idx, isNew, err)
		}
	}
	for i := range n {
		v := s.Vector(uint32(i))
		got := []uint64{v[0], v[s.width-1], *s.Link(uint32(i))}
		if diff := cmp.Diff([]uint64{uint64(i), uint64(i * 7), uint64(i)}, got); diff != "" {
			t.Fatalf("vector %d (-want +got):\n%s", i, diff)
		}
	}
	if b := s.Bytes(); b > 64<<20 {
		t.Errorf("%d wide vectors hold %d bytes", n, b)
	}
}

func TestStore(t *testing.T) {
	s := NewStore(2)
	vecs := [][]uint64{{1, 2}, {2, 1}, {1, 2}, {0, 0}}
	type ins struct {
		Idx   uint32
		IsNew bool
	}
	var got []ins
	for _, v := range vecs {
		i, n, err := s.Insert(v, 7)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ins{i, n})
	}
	want := []ins{{0, true}, {1, true}, {0, false}, {2, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Grow well past the initial tables.
	for i := range uint64(100000) {
		if _, n, _ := s.Insert([]uint64{i, i * 3}, 0); n != (i > 0) {
			// {0,0} is already stored
			t.Fatalf("insert %d: new = %v", i, n)
		}
	}
	if s.Len() != 100002 {
		t.Errorf("Len = %d, want 100002", s.Len())
	}
	if diff := cmp.Diff([]uint64{5, 15}, s.Vector(func() uint32 { i, _, _ := s.Insert([]uint64{5, 15}, 0); return i }())); diff != "" {
		t.Errorf("Vector (-want +got):\n%s", diff)
	}
}

package machine

import (
	"sync"
	"sync/atomic"
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
		if s.limit < 1 || int64(s.dirMax)<<s.shift < s.limit {
			t.Errorf("width %d: limit %d beyond the directory (%d chunks)", tt.width, s.limit, s.dirMax)
		}
		if n := len(*s.chunks.Load()); n > dirInit {
			t.Errorf("width %d: a new store's directory has %d entries, want at most %d", tt.width, n, dirInit)
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

// TestStoreBlocks inserts the same vectors from several goroutines, each
// with its own IndexBlock, over several "levels" (a Release of every
// block between them, as the search does): every vector is stored once,
// at an index at or above its level's End, the unused indexes below End
// are FreeLink, and Len counts the vectors alone.
func TestStoreBlocks(t *testing.T) {
	const workers, levels, perLevel = 4, 3, 3000
	s := NewStore(2)
	total := 0
	for lv := range levels {
		start := s.End()
		blks := make([]IndexBlock, workers)
		idxs := make([][]uint32, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perLevel {
					// Every goroutine inserts every vector of the level.
					vec := []uint64{uint64(lv), uint64((i*7 + w) % perLevel)}
					idx, _, err := s.InsertBlock(vec, Hash(vec), uint64(lv), &blks[w])
					if err != nil {
						t.Error(err)
						return
					}
					idxs[w] = append(idxs[w], idx)
				}
			}()
		}
		wg.Wait()
		for w := range blks {
			s.Release(&blks[w])
			if blks[w] != (IndexBlock{}) {
				t.Errorf("level %d: block %d not emptied: %+v", lv, w, blks[w])
			}
		}
		total += perLevel
		if s.Len() != int64(total) {
			t.Errorf("level %d: Len = %d, want %d", lv, s.Len(), total)
		}
		stored := 0
		for i := start; i < s.End(); i++ {
			switch l := *s.Link(i); l {
			case FreeLink:
			case uint64(lv):
				stored++
			default:
				t.Errorf("level %d: index %d has link %d", lv, i, l)
			}
		}
		if stored != perLevel {
			t.Errorf("level %d: %d vectors below End, want %d", lv, stored, perLevel)
		}
		for w := range idxs {
			for i, idx := range idxs[w] {
				want := []uint64{uint64(lv), uint64((i*7 + w) % perLevel)}
				if idx < start {
					t.Fatalf("level %d: index %d below the level's start %d", lv, idx, start)
				}
				if diff := cmp.Diff(want, s.Vector(idx)); diff != "" {
					t.Fatalf("level %d, index %d (-want +got):\n%s", lv, idx, diff)
				}
			}
		}
	}
}

// TestStoreBlocksFull checks that InsertBlock reports ErrStoreFull at the
// limit, with the reservations of several blocks reaching past it, and
// that Len then counts exactly the vectors stored.
func TestStoreBlocksFull(t *testing.T) {
	s := NewStore(1)
	s.limit = 600
	blks := make([]IndexBlock, 3)
	stored := 0
	for i := 0; ; i++ {
		vec := []uint64{uint64(i)}
		_, isNew, err := s.InsertBlock(vec, Hash(vec), 0, &blks[i%3])
		if err == ErrStoreFull {
			break
		}
		if err != nil || !isNew {
			t.Fatalf("insert %d: %v %v", i, isNew, err)
		}
		stored++
	}
	for i := range blks {
		s.Release(&blks[i])
	}
	if s.Len() != int64(stored) || stored == 0 || s.End() > 600 {
		t.Errorf("stored %d: Len %d, End %d (limit 600)", stored, s.Len(), s.End())
	}
}

// TestStoreDirectoryGrows inserts from several goroutines into a store of
// 4-record chunks, so that the chunk directory doubles many times while
// other goroutines read vectors through it (run it with -race): every
// vector reads back intact, during the inserts and after.
func TestStoreDirectoryGrows(t *testing.T) {
	const workers, perWorker = 4, 2000
	s := NewStore(2)
	s.shift, s.mask = 2, 3 // 4 records a chunk: 2000 chunks
	var last atomic.Uint32 // the index most recently inserted, +1
	idxs := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				vec := []uint64{uint64(w), uint64(i)}
				idx, isNew, err := s.Insert(vec, uint64(w))
				if err != nil || !isNew {
					t.Errorf("worker %d, insert %d: %v %v", w, i, isNew, err)
					return
				}
				idxs[w] = append(idxs[w], idx)
				last.Store(idx + 1)
				// Another worker's vector, written before its index was stored.
				if j := last.Load(); j > 0 {
					if v := s.Vector(j - 1); *s.Link(j - 1) != v[0] {
						t.Errorf("vector %d: link %d, vector %v", j-1, *s.Link(j - 1), v)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for w := range idxs {
		for i, idx := range idxs[w] {
			if diff := cmp.Diff([]uint64{uint64(w), uint64(i)}, s.Vector(idx)); diff != "" {
				t.Fatalf("worker %d, vector %d (-want +got):\n%s", w, i, diff)
			}
		}
	}
	if n, want := len(*s.chunks.Load()), workers*perWorker/4; n < want {
		t.Errorf("directory of %d entries, want at least %d", n, want)
	}
}

package machine

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
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

func TestHashWord(t *testing.T) {
	for _, x := range []uint64{0, 1, 2, 1<<32 - 1, 1 << 32, 0xdeadbeef, ^uint64(0)} {
		if got, want := hashWord(x), hashWords([]uint64{x}); got != want {
			t.Errorf("hashWord(%#x) = %#x, want hashWords's %#x", x, got, want)
		}
	}
}

// TestNewStoreFor checks which programs get a store whose table slots
// hold the vectors: one word of at most 32 bits.
func TestNewStoreFor(t *testing.T) {
	tests := []struct {
		vars        string
		want, keyed bool // InSlot of NewStoreFor's, Keyed of NewKeyStoreFor's
	}{
		{"var a: 0..1 = 0", true, false},
		{"var a: 0..1 = 0\nvar b: 0..65535 = 0\nvar c: 0..32767 = 0", true, false},                // 1 + 16 + 15 = 32 bits
		{"var a: 0..3 = 0\nvar b: 0..65535 = 0\nvar c: 0..32767 = 0", false, true},                // 33 bits
		{"var a: 0..1 = 0\nvar b: 0..4294967295 = 0", false, true},                                // 33 bits
		{"var a: 0..0 = 0", true, false},                                                          // no bits
		{"var a: 0..1 = 0\nvar b: 0..1152921504606846975 = 0\nvar c: 0..65535 = 0", false, false}, // 1 + 60 + 16 bits: two words
		{"var a: 0..3 = 0\nvar b: 0..1152921504606846975 = 0", false, true},                       // 2 + 60 = 62 bits
		{"var a: 0..7 = 0\nvar b: 0..1152921504606846975 = 0", false, true},                       // 3 + 60 = 63 bits
		{"var a: 0..15 = 0\nvar b: 0..1152921504606846975 = 0", false, false},                     // 4 + 60 = 64 bits: no mark bit left
	}
	for _, tt := range tests {
		p := compile(t, "spec S\n"+tt.vars+"\naction step { a := a }\n")
		if got := NewStoreFor(p).InSlot(); got != tt.want {
			t.Errorf("%q (%d words): InSlot = %v, want %v", tt.vars, p.Words(), got, tt.want)
		}
		if NewStoreFor(p).Keyed() {
			t.Errorf("%q: NewStoreFor's store is keyed", tt.vars)
		}
		ks := NewKeyStoreFor(p)
		if got := ks.Keyed(); got != tt.keyed {
			t.Errorf("%q (%d words): NewKeyStoreFor's Keyed = %v, want %v", tt.vars, p.Words(), got, tt.keyed)
		}
		if got, want := ks.InSlot(), tt.want || tt.keyed; got != want {
			t.Errorf("%q: NewKeyStoreFor's InSlot = %v, want %v", tt.vars, got, want)
		}
	}
}

// TestStoreInSlot inserts the same sequence of one-word vectors, with
// repeats, into a store whose slots hold the vectors and into one that
// compares records, sequentially (Insert, InsertHashed without locks)
// and from several goroutines (InsertBlock): the indexes, the novelty,
// the vectors and the links must agree, past many table doublings.
func TestStoreInSlot(t *testing.T) {
	const n = 60000
	vecs := make([]uint64, 0, 2*n)
	for i := range uint64(n) {
		x := (i * 0x9E3779B1) & (1<<32 - 1) // distinct in 32 bits
		vecs = append(vecs, x)
		vecs = append(vecs, vecs[(i*7)%uint64(len(vecs))]) // a repeat
	}
	vecs = append(vecs, 0, 1<<32-1, 0, 1<<32-1)
	run := func(s *Store, lock bool) []storeIns { return insertSeq(t, s, vecs, lock) }
	plain, in := NewStore(1), NewStoreBits(1, 32)
	if plain.InSlot() || !in.InSlot() {
		t.Fatalf("InSlot: %v %v, want false true", plain.InSlot(), in.InSlot())
	}
	want := run(plain, true)
	if diff := cmp.Diff(want, run(in, true)); diff != "" {
		t.Errorf("locked (-plain +inslot):\n%s", diff)
	}
	in2 := NewStoreBits(1, 20)
	if diff := cmp.Diff(want, run(in2, false)); diff != "" {
		t.Errorf("unlocked (-plain +inslot):\n%s", diff)
	}
	for i := range uint32(plain.Len()) {
		if diff := cmp.Diff(plain.Vector(i), in.Vector(i)); diff != "" {
			t.Fatalf("vector %d (-plain +inslot):\n%s", i, diff)
		}
		if *in.Link(i) != in.Vector(i)[0]^5 {
			t.Fatalf("link %d = %d", i, *in.Link(i))
		}
	}

	// Concurrently: every goroutine inserts every vector; each is stored
	// once and every goroutine gets its one index.
	const workers = 4
	s := NewStoreBits(1, 32)
	blks := make([]IndexBlock, workers)
	idxs := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range vecs {
				v := []uint64{vecs[(k+w*977)%len(vecs)]}
				idx, _, err := s.InsertBlock(v, Hash(v), 3, &blks[w])
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
	}
	if s.Len() != plain.Len() {
		t.Errorf("concurrent: Len = %d, want %d", s.Len(), plain.Len())
	}
	at := map[uint64]uint32{}
	for w := range idxs {
		for k, idx := range idxs[w] {
			x := vecs[(k+w*977)%len(vecs)]
			if got := s.Vector(idx)[0]; got != x {
				t.Fatalf("worker %d: index %d holds %#x, want %#x", w, idx, got, x)
			}
			if j, ok := at[x]; ok && j != idx {
				t.Fatalf("%#x stored at %d and %d", x, j, idx)
			}
			at[x] = idx
		}
	}
}

// TestStoreKeyed inserts one sequence of one-word vectors of up to 63
// bits, with repeats, the zero vector and the largest among them, into a
// keyed store (locked and not) and into one that compares records: the
// novelty, the new vectors' indexes, the vectors and the links must
// agree, past many table doublings and after a Reset, and a duplicate's
// index is NoIndex in the keyed store.
func TestStoreKeyed(t *testing.T) {
	const n = 60000
	vecs := make([]uint64, 0, 2*n+4)
	for i := range uint64(n) {
		x := (i * 0x9E3779B97F4A7C15) >> 1 // distinct in 63 bits
		vecs = append(vecs, x)
		vecs = append(vecs, vecs[(i*7)%uint64(len(vecs))]) // a repeat
	}
	vecs = append(vecs, 0, 1<<63-1, 0, 1<<63-1)
	// A duplicate's index as NoIndex, the keyed store's answer.
	run := func(s *Store, lock bool) []storeIns {
		got := insertSeq(t, s, vecs, lock)
		for i := range got {
			if !got[i].IsNew && !s.Keyed() {
				got[i].Idx = NoIndex
			}
		}
		return got
	}
	plain := NewStore(1)
	want := run(plain, true)
	for _, lock := range []bool{true, false} {
		ks := newKeyStoreBits(1, 63)
		if !ks.Keyed() || !ks.InSlot() {
			t.Fatalf("Keyed %v, InSlot %v, want true", ks.Keyed(), ks.InSlot())
		}
		for round := range 2 {
			if diff := cmp.Diff(want, run(ks, lock)); diff != "" {
				t.Fatalf("lock %v, round %d (-plain +keyed):\n%s", lock, round, diff)
			}
			if ks.Len() != plain.Len() {
				t.Fatalf("Len = %d, want %d", ks.Len(), plain.Len())
			}
			for i := range uint32(plain.Len()) {
				if got, want := ks.Vector(i)[0], plain.Vector(i)[0]; got != want {
					t.Fatalf("vector %d = %#x, want %#x", i, got, want)
				}
				if *ks.Link(i) != ks.Vector(i)[0]^5 {
					t.Fatalf("link %d = %d", i, *ks.Link(i))
				}
			}
			ks.Reset()
		}
	}
}

// TestStoreKeyedRefuses checks that a keyed store refuses what it cannot
// answer with an internal error: a vector with the slot's mark bit set,
// and InsertBlock, whose callers need a duplicate's index.
func TestStoreKeyedRefuses(t *testing.T) {
	for name, f := range map[string]func(s *Store){
		"64-bit vector": func(s *Store) { s.Insert([]uint64{1 << 63}, 0) },
		"InsertBlock":   func(s *Store) { s.InsertBlock([]uint64{1}, Hash([]uint64{1}), 0, &IndexBlock{}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(newKeyStoreBits(1, 63))
		}()
	}
}

// storeIns is what an insert returned.
type storeIns struct {
	Idx   uint32
	IsNew bool
}

// insertSeq inserts the one-word vectors vecs into s in order, each with
// the link word x^5, and returns what each insert returned.
func insertSeq(t *testing.T, s *Store, vecs []uint64, lock bool) []storeIns {
	t.Helper()
	var got []storeIns
	for _, x := range vecs {
		v := []uint64{x}
		i, isNew, err := s.InsertHashed(v, Hash(v), x^5, lock)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, storeIns{i, isNew})
	}
	return got
}

// TestStoreInSlotTooWide checks that a vector beyond the 32 bits of a
// store whose slots hold the vectors is refused with an internal error,
// not stored where no look-up finds it.
func TestStoreInSlotTooWide(t *testing.T) {
	s := NewStoreBits(1, 32)
	defer func() {
		if r := recover(); r == nil {
			t.Error("no panic for a 33-bit vector")
		}
	}()
	s.Insert([]uint64{1 << 32}, 0)
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

// TestStoreSlotAddr checks that SlotAddr points at the first table slot
// of a hash, the one Touch loads, through the tables' growth: a stored
// vector's first slot is never empty (linear probing starts there), and
// the first vector of an otherwise empty store sits in it.
func TestStoreSlotAddr(t *testing.T) {
	tests := []struct {
		name  string
		s     *Store
		width int
	}{
		{"tags", NewStore(2), 2},
		{"in-slot", NewStoreBits(1, 32), 1},
	}
	for _, tt := range tests {
		s := tt.s
		first := []uint64{7, 9}[:tt.width]
		h := Hash(first)
		idx, _, err := s.Insert(first, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := *s.SlotAddr(h); uint32(got) != idx+1 {
			t.Errorf("%s: the first vector's slot holds %#x, want index %d", tt.name, got, idx)
		}
		var vecs [][]uint64
		for i := range uint64(20000) {
			v := []uint64{i * 0x9E3779B1 & (1<<32 - 1), i}[:tt.width]
			vecs = append(vecs, v)
			if _, _, err := s.Insert(v, 0); err != nil {
				t.Fatal(err)
			}
		}
		for _, v := range vecs {
			h := Hash(v)
			if got, touch := *s.SlotAddr(h), s.Touch(h); got == 0 || got != touch {
				t.Fatalf("%s: vector %v: SlotAddr's slot %#x, Touch %#x, want equal and set", tt.name, v, got, touch)
			}
		}
	}
}

// TestStoreBlocksGrowRace inserts with InsertBlock from 8 goroutines into
// stores whose shard tables start at 4 entries, so that they grow many
// times while the other goroutines insert into them without a lock (run
// it with -race): every vector is stored exactly once (every goroutine
// gets the same index for it, Len counts the distinct vectors), each
// table holds its shard's vectors once each, its count is its entries,
// and no table is over its 3/4 load. Both slot layouts: records (two
// words) and vectors in the slots (one word of 32 bits, with vector 0).
// With the writers declared (SetWriters), the goroutines count their
// entries in their blocks for a while (Store.count), over more vectors so
// that the tables are large enough for it: the counts are still exact
// after Release, and no table is over 15/16 of its size.
func TestStoreBlocksGrowRace(t *testing.T) {
	const workers = 8
	tests := []struct {
		name     string
		store    func() *Store
		vec      func(k int) []uint64
		distinct int // a prime: each order below is a permutation
		writers  int
		// try: TryInsertBlock, the vectors of shards being grown set
		// aside and inserted later, as the search does.
		try bool
	}{
		{"records", func() *Store { return NewStore(2) }, func(k int) []uint64 { return []uint64{uint64(k % 97), uint64(k)} }, 4999, 0, false},
		{"in-slot", func() *Store { return NewStoreBits(1, 32) }, func(k int) []uint64 { return []uint64{uint64(k) * 0x9e3779b1 & 0xFFFFFFFF} }, 4999, 0, false},
		{"records-pending", func() *Store { return NewStore(2) }, func(k int) []uint64 { return []uint64{uint64(k % 97), uint64(k)} }, 199999, workers, false},
		{"in-slot-pending", func() *Store { return NewStoreBits(1, 32) }, func(k int) []uint64 { return []uint64{uint64(k) * 0x9e3779b1 & 0xFFFFFFFF} }, 199999, workers, false},
		{"records-try", func() *Store { return NewStore(2) }, func(k int) []uint64 { return []uint64{uint64(k % 97), uint64(k)} }, 199999, workers, true},
		{"in-slot-try", func() *Store { return NewStoreBits(1, 32) }, func(k int) []uint64 { return []uint64{uint64(k) * 0x9e3779b1 & 0xFFFFFFFF} }, 199999, workers, true},
	}
	for _, tc := range tests {
		distinct := tc.distinct
		if distinct > 49999 && testenv.Short(t) {
			distinct = 49999 // the quick form: a smaller prime, the same growth from 4 slots
		}
		t.Run(tc.name, func(t *testing.T) {
			s := tc.store()
			s.SetWriters(tc.writers)
			for i := range s.tabs {
				tab := make([]uint64, 4)
				s.tabs[i].Store(&tab)
			}
			blks := make([]IndexBlock, workers)
			idxs := make([][]uint32, workers)
			var growing atomic.Int64
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					idxs[w] = make([]uint32, distinct)
					var later, again []int // try: the vectors set aside
					insert := func(k int, wait bool) bool {
						vec := tc.vec(k)
						var idx uint32
						var err error
						if wait {
							idx, _, err = s.InsertBlock(vec, Hash(vec), uint64(k), &blks[w])
						} else {
							idx, _, err = s.TryInsertBlock(vec, Hash(vec), uint64(k), &blks[w])
						}
						if err == ErrGrowing {
							growing.Add(1)
							return false
						}
						if err != nil {
							t.Error(err)
						}
						idxs[w][k] = idx
						return true
					}
					for i := range distinct {
						k := (i*(2*w+1) + w*613) % distinct // every goroutine every vector, in its own order
						if !insert(k, !tc.try) {
							later = append(later, k)
						}
						if i%64 == 63 && len(later) > 0 {
							again, later = later, again[:0]
							for _, k := range again {
								if !insert(k, false) {
									later = append(later, k)
								}
							}
						}
					}
					for _, k := range later {
						insert(k, true)
					}
				}()
			}
			wg.Wait()
			pending := false // some entries are counted in a block only
			for w := range blks {
				for _, n := range blks[w].pend {
					pending = pending || n > 0
				}
				s.Release(&blks[w])
			}
			if pending != (tc.writers > 0) {
				t.Errorf("entries counted in the blocks: %v, with %d writers declared", pending, tc.writers)
			}
			if s.Len() != int64(distinct) {
				t.Errorf("Len = %d, want %d", s.Len(), distinct)
			}
			for k := range distinct {
				idx := idxs[0][k]
				for w := range idxs {
					if idxs[w][k] != idx {
						t.Fatalf("vector %d: index %d for goroutine 0, %d for %d", k, idx, idxs[w][k], w)
					}
				}
				if diff := cmp.Diff(tc.vec(k), s.Vector(idx)); diff != "" {
					t.Fatalf("vector %d at %d (-want +got):\n%s", k, idx, diff)
				}
				if *s.Link(idx) != uint64(k) {
					t.Fatalf("vector %d at %d: link %d", k, idx, *s.Link(idx))
				}
			}
			seen := map[uint32]bool{}
			for i := range s.shards {
				tab := *s.tabs[i].Load()
				n := 0
				for _, e := range tab {
					if e == 0 {
						continue
					}
					if e == frozen || seen[uint32(e)-1] {
						t.Fatalf("shard %d: entry %#x frozen or twice", i, e)
					}
					seen[uint32(e)-1] = true
					n++
				}
				if int64(n) != s.shards[i].used || tc.writers == 0 && 4*n > 3*len(tab) || 16*n > 15*len(tab) {
					t.Errorf("shard %d: %d entries, count %d, table of %d", i, n, s.shards[i].used, len(tab))
				}
			}
			if len(seen) != distinct {
				t.Errorf("%d entries in the tables, want %d", len(seen), distinct)
			}
			if tc.try {
				t.Logf("%d inserts set aside for a growth", growing.Load())
			}
		})
	}
}

// TestStoreLinkRun checks LinkRun against Link over ranges that start
// and end inside chunks and cross their boundaries, for narrow and wide
// records.
func TestStoreLinkRun(t *testing.T) {
	for _, width := range []int{2, 3, 3126} {
		// Chunks of 256 records for 2 and 3 words (the bit count serves
		// only the chunk size here: no slot holds a vector), 128 for 3126.
		s := NewStoreBits(width, min(8, 64*width))
		if width > 3 {
			s = NewStore(width)
		}
		n := 5*(1<<s.shift) + 7
		vec := make([]uint64, width)
		for i := range n {
			vec[0] = uint64(i)
			if _, isNew, err := s.Insert(vec, uint64(1000+i)); err != nil || !isNew {
				t.Fatalf("width %d: insert %d: %v %v", width, i, isNew, err)
			}
		}
		for _, r := range [][2]uint32{{0, uint32(n)}, {3, 4}, {1<<s.shift - 1, 1<<s.shift + 2}, {7, uint32(n - 3)}} {
			var got []uint64
			for i := r[0]; i < r[1]; {
				recs, k := s.LinkRun(i, r[1])
				if k < 1 || k > int(r[1]-i) {
					t.Fatalf("width %d: LinkRun(%d, %d) gives %d", width, i, r[1], k)
				}
				for j := range k {
					got = append(got, recs[j*s.Stride()])
				}
				i += uint32(k)
			}
			var want []uint64
			for i := r[0]; i < r[1]; i++ {
				want = append(want, *s.Link(i))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("width %d, %v (-Link +LinkRun):\n%s", width, r, d)
			}
		}
	}
}

// TestStoreTryInsertBlock follows one growth of a shard step by step, as
// growShared makes it, and checks TryInsertBlock at each: it sets the
// vector aside (ErrGrowing, nothing stored) while the growth holds the
// shard, also when the vector is the one that needs the table to grow,
// and inserts it once the grown table is published.
func TestStoreTryInsertBlock(t *testing.T) {
	s := NewStore(2)
	s.SetWriters(2)
	const si = 7
	tab := make([]uint64, 8)
	s.tabs[si].Store(&tab)
	var blk IndexBlock
	// Vectors of shard si, by their hashes' top bits.
	var vecs [][]uint64
	for k := uint64(0); len(vecs) < 7; k++ {
		if v := []uint64{k, 1}; Hash(v)>>(64-shardBits) == si {
			vecs = append(vecs, v)
		}
	}
	for _, v := range vecs[:6] { // 6 of 8 slots: the next needs a growth
		if _, isNew, err := s.TryInsertBlock(v, Hash(v), 0, &blk); err != nil || !isNew {
			t.Fatalf("insert %v: new %v, %v", v, isNew, err)
		}
	}
	next := blk.next // the index the next new vector takes
	sh := &s.shards[si]
	v := vecs[6]
	// Another goroutine holds the growth: the insert that would grow the
	// table sets the vector aside.
	sh.grow.Lock()
	if _, _, err := s.TryInsertBlock(v, Hash(v), 0, &blk); err != ErrGrowing {
		t.Fatalf("growth held: %v, want ErrGrowing", err)
	}
	// It has frozen the empty slots: an insert probing them too.
	for k := range tab {
		atomic.CompareAndSwapUint64(&tab[k], 0, frozen)
	}
	if _, _, err := s.TryInsertBlock(v, Hash(v), 0, &blk); err != ErrGrowing {
		t.Fatalf("table frozen: %v, want ErrGrowing", err)
	}
	if blk.next != next || sh.used+int64(blk.pend[si]) != 6 {
		t.Fatalf("set aside: next index %d (want %d), %d+%d entries counted (want 6)", blk.next, next, sh.used, blk.pend[si])
	}
	// The grown table is published: the vector goes in.
	grown := make([]uint64, 2*len(tab))
	for _, e := range tab {
		if e != frozen {
			s.place(grown, e)
		}
	}
	s.tabs[si].Store(&grown)
	sh.grow.Unlock()
	idx, isNew, err := s.TryInsertBlock(v, Hash(v), 0, &blk)
	if err != nil || !isNew {
		t.Fatalf("after the growth: new %v, %v", isNew, err)
	}
	s.Release(&blk)
	if s.Len() != 7 || idx != next || !equalWords(s.Vector(idx), v) {
		t.Fatalf("Len %d, vector %v at %d; want 7, %v at %d", s.Len(), s.Vector(idx), idx, v, next)
	}
	for _, v := range vecs {
		if _, isNew, err := s.TryInsertBlock(v, Hash(v), 0, &blk); err != nil || isNew {
			t.Fatalf("%v again: new %v, %v", v, isNew, err)
		}
	}
}

// TestVectorStore inserts the same sequence of vectors, with repeats,
// into a store without link words (NewVectorStoreFor) and into one with
// them, for programs of one word of at most 32 bits (slots hold the
// vectors), of 33 to 63 bits and of two words: the indexes, the novelty
// and the vectors must agree past many table doublings and chunks, and
// the vector store's records must be a word a vector smaller.
func TestVectorStore(t *testing.T) {
	for _, vars := range []string{
		"var a: 0..65535 = 0\nvar b: 0..255 = 0",
		"var a: 0..3 = 0\nvar b: 0..4294967295 = 0",
		"var a: 0..1 = 0\nvar b: 0..1152921504606846975 = 0\nvar c: 0..65535 = 0",
	} {
		p := compile(t, "spec S\n"+vars+"\naction step { a := a }\n")
		w := p.Words()
		vs, ls := NewVectorStoreFor(p), NewStoreFor(p)
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		const n = 100000
		seen := make([][]uint64, 0, n)
		for k := range 2 * n {
			vec := make([]uint64, w)
			if k%3 == 2 && len(seen) > 0 {
				copy(vec, seen[rng.IntN(len(seen))])
			} else {
				for i := range vec {
					vec[i] = rng.Uint64()
					if b := stateBits(p) - 64*i; b < 64 {
						vec[i] &= 1<<b - 1
					}
				}
			}
			i1, new1, err1 := vs.InsertHashed(vec, vs.Hash(vec), 0, false)
			i2, new2, err2 := ls.InsertHashed(vec, ls.Hash(vec), uint64(k), false)
			if err1 != nil || err2 != nil || i1 != i2 || new1 != new2 {
				t.Fatalf("%q, insert %d: vector store (%d, %v, %v), link store (%d, %v, %v)", vars, k, i1, new1, err1, i2, new2, err2)
			}
			if new1 {
				seen = append(seen, vec)
			}
		}
		for i, vec := range seen {
			if got := vs.Vector(uint32(i)); !slices.Equal(got, vec) {
				t.Fatalf("%q: Vector(%d) = %x, want %x", vars, i, got, vec)
			}
		}
		if got, want := vs.Stride(), ls.Stride()-1; got != want {
			t.Errorf("%q: Stride = %d, want %d", vars, got, want)
		}
		if d := ls.BytesPerVector() - vs.BytesPerVector(); d != 8 {
			t.Errorf("%q: the vector store's bytes a vector are %v fewer than the link store's, want 8", vars, d)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q: InsertBlock on a store without link words did not panic", vars)
				}
			}()
			var blk IndexBlock
			vs.InsertBlock(make([]uint64, w), 1, 0, &blk)
		}()
	}
}

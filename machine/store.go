package machine

import (
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"
)

// ErrStoreFull is returned by [Store.Insert] when the store holds the
// maximum number of states: 2^32-2, or fewer when the vectors are so wide
// that they would take more than 2^40 bytes.
var ErrStoreFull = errors.New("machine: visited store is full (2^32-2 states, or 2^40 bytes of vectors)")

const (
	maxChunkShift = 15      // at most 32768 records per arena chunk
	maxChunkBytes = 4 << 20 // a chunk takes at most 4 MiB, unless one record is larger
	maxArenaBytes = 1 << 40 // the chunk directory covers at most this much
	shardBits     = 8
	nShards       = 1 << shardBits
	shardInit     = 256 // initial table entries per shard (fewer for vectors of few bits)
	dirInit       = 8   // initial chunk directory entries
	tagMask       = 0xFFFFFFFF00000000
	cacheLine     = 64
	blockSize     = 256 // indexes an IndexBlock reserves at a time
)

// FreeLink is the link word of an index that [Store.Release] left
// unused: no vector is stored there.
const FreeLink = ^uint64(0)

// MaxStates is the most vectors a [Store] holds (its indexes are
// uint32, and one value is kept free).
const MaxStates = 1<<32 - 2

// Store is the visited set: a concurrent set of fixed-width vectors, each
// identified by a dense uint32 index in insertion order, with one
// auxiliary "link" word per vector (the BFS keeps parent pointers there).
//
// Vectors live in arena chunks that never move, so a slice returned by
// [Store.Vector] stays valid. A chunk holds 32768 records, or fewer (a
// power of two) when that would take more than 4 MiB, so that the first
// chunk of a store of very wide vectors does not reserve far more memory
// than its few states use (the memory budget counts what is allocated). Membership is an
// open-addressing hash table (64-bit wyhash-style hash, linear probing,
// the hash's top 32 bits stored next to the index and compared before the
// vectors) split into 256 shards by the hash's top 8 bits. A slot's
// position comes from the stored bits (32..55), so growing a table never
// reads the vectors. Each shard has its own
// mutex and grows (doubling, at 3/4 load) independently of the others, so
// there is no stop-the-world rehash.
//
// A store made by [NewStoreBits] for vectors of one word of at most 32
// bits keeps each vector in its table slot, in place of the hash's top
// bits (vector<<32 | idx+1): a look-up then compares the vector in the
// slot and reads no record, so a duplicate costs one cache miss (the
// slot) instead of two (the slot, then the record), and growth rehashes
// the vector in the slot.
//
// A store made by [NewVectorStoreFor] has no link words: a record is the
// vector alone.
//
// A store made by [NewKeyStoreFor] for one writer keeps a one-word vector
// of 33 to 63 bits whole in its slot, with no index (vector | 1<<63): a
// look-up compares the slot and reads no record, as above, and a
// duplicate's index is not known ([NoIndex]). Only [Store.Insert] and
// [Store.InsertHashed] insert into it.
//
// The zero value is not usable; call [NewStore]. Insert, Vector, Link and
// Len are safe for concurrent use. A vector written by Insert is visible
// to every goroutine that obtained its index from Insert.
type Store struct {
	width  int    // payload words per vector
	stride int    // record words: link + payload
	lw     int    // link words of a record: 1, or 0 (NewVectorStoreFor)
	shift  uint   // records per chunk: 1 << shift
	mask   uint32 // 1<<shift - 1
	limit  int64  // most records the chunk directory covers
	inSlot bool   // the table slots hold the vectors (NewStoreBits)
	keyed  bool   // the slots hold the vectors without their indexes (NewKeyStoreFor)
	dirMax int    // entries of the chunk directory at its largest
	// chunks is the chunk directory: it starts with dirInit entries and
	// doubles (under alloc) up to dirMax as chunks are allocated.
	chunks atomic.Pointer[[]atomic.Pointer[[]uint64]]
	// n is incremented by every new state: on a cache line of its own,
	// so that the workers' reads of the fields above (every Vector and
	// Link) do not miss whenever another worker stores a state.
	_     [cacheLine]byte
	n     atomic.Int64
	_     [cacheLine - 8]byte
	holes atomic.Int64 // indexes released unused (FreeLink)
	// writers is the most goroutines that insert with InsertBlock at
	// once (SetWriters).
	writers int64
	alloc   sync.Mutex
	bytes   atomic.Int64 // arena chunks, tables and chunk directory
	tables  atomic.Int64 // hash-table bytes
	_       [cacheLine]byte
	// tabs are the shards' tables: tag<<32 | idx+1, 0 = empty, entries
	// written atomically. Every successor reads its shard's pointer
	// (Touch, TouchRecord, lookup), and a pointer changes only when its
	// table grows, so they are kept apart from the locks, which a
	// worker writes at every new state: a lock taken by one worker
	// would otherwise cost the other a miss on its next read of the
	// pointer.
	tabs   [nShards]atomic.Pointer[[]uint64]
	_      [cacheLine]byte
	shards [nShards]shard
}

type shard struct {
	mu sync.Mutex // Insert's lock (InsertBlock takes none)
	// grow is held while InsertBlock's growth freezes the table and
	// replaces it (growShared).
	grow sync.Mutex
	// used counts the table's entries: under mu or by one goroutine
	// (Insert, InsertHashed), or atomically (InsertBlock), less those
	// that InsertBlock's goroutines hold pending in their blocks until
	// Release (Store.count).
	used int64
	_    [cacheLine - 8 - 8 - 8]byte
}

// frozen is what InsertBlock's growth leaves in every empty slot of a
// table it replaces, so that no insert lands where the copy would miss
// it. It is never an entry: its index field (all ones) is no idx+1.
const frozen = 0xFFFFFFFF

// NewStore returns an empty store of vectors of width words (width >= 1).
func NewStore(width int) *Store { return NewStoreBits(width, 64*width) }

// NewStoreBits is [NewStore] for vectors whose set bits all lie in the
// low nbits bits: when that is one word of at most 32 bits, the table
// slots hold the vectors themselves (see [Store]). Inserting a vector
// with a bit set at or above bits then panics.
func NewStoreBits(width, nbits int) *Store { return newStoreBits(width, nbits, 1) }

func newStoreBits(width, nbits, lw int) *Store {
	// A chunk holds at most the 1<<nbits distinct vectors (and a block).
	s := &Store{width: width, stride: width + lw, lw: lw, shift: uint(min(maxChunkShift, max(nbits, 8))), inSlot: width == 1 && nbits <= 32}
	for s.shift > 0 && (1<<s.shift)*s.stride*8 > maxChunkBytes {
		s.shift--
	}
	s.mask = 1<<s.shift - 1
	chunkBytes := int64(1<<s.shift) * int64(s.stride) * 8
	n := int64(1) << (32 - s.shift)
	n = min(n, max(1, maxArenaBytes/chunkBytes))
	s.limit = min(int64(MaxStates), n<<s.shift)
	s.dirMax = int(n)
	dir := make([]atomic.Pointer[[]uint64], min(n, dirInit))
	s.chunks.Store(&dir)
	// At most 1<<nbits vectors: 4 table entries a shard for up to 256,
	// in one backing array (two allocations, not 512).
	ti := min(shardInit, 1<<min(8, max(2, nbits-6)))
	tabs, all := make([][]uint64, nShards), prefault(make([]uint64, nShards*ti))
	for i := range s.shards {
		tabs[i] = all[i*ti : (i+1)*ti : (i+1)*ti]
		s.tabs[i].Store(&tabs[i])
	}
	s.bytes.Add(int64(nShards*ti*8 + len(dir)*8))
	s.tables.Add(int64(nShards * ti * 8))
	return s
}

// NewStoreFor returns an empty store for the packed states of p: its
// table slots hold the vectors when they are one word of at most 32 bits.
func NewStoreFor(p *Program) *Store {
	return NewStoreBits(p.lay.words, stateBits(p))
}

// NewVectorStoreFor is [NewStoreFor] without link words: its records are
// the vectors alone, for a caller that never asks a link (Link, LinkRun
// and the link argument of the inserts mean nothing in it). Only Insert
// and InsertHashed may insert into it.
func NewVectorStoreFor(p *Program) *Store {
	return newStoreBits(p.lay.words, stateBits(p), 0)
}

// stateBits returns the bits of p's packed states that may be set: those
// below the highest bit of any slot.
func stateBits(p *Program) int {
	top := 0
	for i := range p.lay.slots {
		ps := &p.lay.slots[i]
		if ps.mask != 0 {
			top = max(top, 64*int(ps.word)+bits.Len64(ps.mask<<ps.shift))
		}
	}
	return top
}

// NoIndex is what a store made by [NewKeyStoreFor] returns as the index
// of a vector it holds already: it keeps no index in its slots.
const NoIndex = ^uint32(0)

// keyedMark is set in every slot of a keyed store, so that the zero
// vector's slot is not empty.
const keyedMark = 1 << 63

// NewKeyStoreFor is [NewStoreFor] for one goroutine that inserts and needs
// the indexes of new vectors only: where the vectors are one word of 33
// to 63 bits, the table slots hold them whole, without their indexes, and
// a duplicate's insert returns [NoIndex] (a duplicate then costs the
// slot's cache miss alone, not the record's too, in the same table
// memory). Other vectors get NewStoreFor's store. Only Insert and
// InsertHashed may insert into a keyed one ([Store.Keyed]).
func NewKeyStoreFor(p *Program) *Store { return newKeyStoreBits(p.lay.words, stateBits(p)) }

// newKeyStoreBits is NewKeyStoreFor for vectors of width words whose set
// bits lie in the low nbits bits.
func newKeyStoreBits(width, nbits int) *Store {
	s := NewStoreBits(width, nbits)
	s.keyed = width == 1 && nbits > 32 && nbits < 64
	return s
}

// Width returns the number of words of every vector.
func (s *Store) Width() int { return s.width }

// InSlot reports whether the table slots hold the vectors (see [Store]):
// a look-up then reads no record, and [Store.TouchRecord] touches the
// record of a match only for its link word (of a keyed store's, none:
// its slots name no record).
func (s *Store) InSlot() bool { return s.inSlot || s.keyed }

// Keyed reports whether the store keeps no index of a stored vector in
// its slots ([NewKeyStoreFor]): the insert of a duplicate returns
// [NoIndex].
func (s *Store) Keyed() bool { return s.keyed }

// slotTag returns what a table slot of vec (hash h) holds above the
// index: the vector itself when the slots hold the vectors, else the
// hash's top 32 bits. It panics when a vector does not fit its slot.
func (s *Store) slotTag(vec []uint64, h uint64) uint64 {
	if !s.inSlot {
		return h & tagMask
	}
	if vec[0]>>32 != 0 {
		panic("wrapcheck internal error: a vector of more bits than its store was made for")
	}
	return vec[0] << 32
}

// Len returns the number of stored vectors. While an [IndexBlock] is
// held it counts the block's unused indexes too (at most 256 a block).
func (s *Store) Len() int64 { return s.n.Load() - s.holes.Load() }

// End returns one more than the largest index handed out: every stored
// vector's index is below it. Indexes below End that an [IndexBlock]
// left unused have the link word [FreeLink]; without blocks, End is Len.
func (s *Store) End() uint32 { return uint32(s.n.Load()) }

// Bytes returns the memory held by the store: arena chunks and tables.
func (s *Store) Bytes() int64 { return s.bytes.Load() }

// BytesPerVector returns the store's memory per stored vector: its
// record (link and vector words) plus its share of the hash tables. The
// preallocated chunk directory and the unused tail of the last chunk are
// not counted.
func (s *Store) BytesPerVector() float64 {
	n := s.Len()
	if n == 0 {
		return 0
	}
	return float64(s.stride*8) + float64(s.tables.Load())/float64(n)
}

// Hash returns the hash the store uses for vec.
func (s *Store) Hash(vec []uint64) uint64 { return hashWords(vec) }

// Vector returns the stored vector idx (do not modify it).
func (s *Store) Vector(idx uint32) []uint64 {
	c := *(*s.chunks.Load())[idx>>s.shift].Load()
	o := int(idx&s.mask)*s.stride + s.lw
	return c[o : o+s.width : o+s.width]
}

// Stride returns the words from one record to the next in the slices
// [Store.LinkRun] returns (the link word and the vector; the vector alone
// in a store of [NewVectorStoreFor]).
func (s *Store) Stride() int { return s.stride }

// LinkRun returns the records of the indexes idx, idx+1, .. up to hi
// (excluded) or the end of idx's arena chunk, whichever comes first: n of
// them (at least one when idx < hi), the link word of idx+k at
// recs[k*Stride()], for a caller that reads the links of a range of
// indexes without a look-up each. Their chunk must be allocated (idx
// below End); the caller must not write the slice but through the links.
func (s *Store) LinkRun(idx, hi uint32) (recs []uint64, n int) {
	c := *(*s.chunks.Load())[idx>>s.shift].Load()
	o := int(idx&s.mask) * s.stride
	n = min(int(hi-idx), 1<<s.shift-int(idx&s.mask))
	return c[o : o+n*s.stride], n
}

// Link returns the link word of vector idx; use sync/atomic to access it
// while other goroutines may.
func (s *Store) Link(idx uint32) *uint64 {
	c := *(*s.chunks.Load())[idx>>s.shift].Load()
	return &c[int(idx&s.mask)*s.stride]
}

// Insert adds vec (Width words) unless an equal vector is stored, and
// returns the index of the stored vector and whether it was added. A new
// vector's link word is set to link before any other goroutine can see
// it.
func (s *Store) Insert(vec []uint64, link uint64) (idx uint32, isNew bool, err error) {
	return s.insert(vec, link, true)
}

// insert is Insert; lock false skips the shard locks, for a caller that
// knows no other goroutine uses the store meanwhile.
func (s *Store) insert(vec []uint64, link uint64, lock bool) (idx uint32, isNew bool, err error) {
	return s.InsertHashed(vec, hashWords(vec), link, lock)
}

// InsertHashed is [Store.Insert] with h = [Hash](vec) already computed
// (the search hashes a batch of successors before inserting them). lock
// false skips the shard locks, for a caller that knows no other goroutine
// uses the store meanwhile.
func (s *Store) InsertHashed(vec []uint64, h, link uint64, lock bool) (idx uint32, isNew bool, err error) {
	if s.keyed {
		return s.insertKeyed(vec[0], h, link, lock)
	}
	si := h >> (64 - shardBits)
	sh := &s.shards[si]
	tag := s.slotTag(vec, h)
	if lock {
		// Look up without the lock first: an entry is published (atomic
		// store) after its record is written, so a vector found here is
		// complete. Missing it (a concurrent insert, or a table replaced
		// by growth) only sends us to the locked path below.
		if j, ok, _, _ := s.lookup(si, vec, h); ok {
			return j, false, nil
		}
		sh.mu.Lock()
	}
	tab := *s.tabs[si].Load()
	mask := uint64(len(tab) - 1)
	i := (h >> 32) & mask
	for {
		e := atomic.LoadUint64(&tab[i])
		if e == 0 {
			break
		}
		if e&tagMask == tag {
			j := uint32(e) - 1
			if s.inSlot || equalWords(s.Vector(j), vec) {
				if lock {
					sh.mu.Unlock()
				}
				return j, false, nil
			}
		}
		i = (i + 1) & mask
	}
	n := s.n.Add(1) - 1
	if n >= s.limit {
		s.n.Add(-1)
		if lock {
			sh.mu.Unlock()
		}
		return 0, false, ErrStoreFull
	}
	idx = uint32(n)
	rec := s.record(idx)
	if s.lw > 0 {
		rec[0] = link
	}
	// A loop rather than copy: vectors are a few words, and copy is a
	// call of runtime.memmove.
	rec = rec[s.lw : s.lw+len(vec)]
	for k, x := range vec {
		rec[k] = x
	}
	if lock {
		atomic.StoreUint64(&tab[i], tag|uint64(idx+1)) // published after the record
	} else {
		// No other goroutine reads the table: a plain store, not an
		// exchange, whose full barrier waited for the record's stores
		// (mutex N=6, one worker: CPU 0.98 in 21 interleaved pairs).
		tab[i] = tag | uint64(idx+1)
	}
	sh.used++
	if sh.used*4 > int64(len(tab))*3 {
		s.grow(si)
	}
	if lock {
		sh.mu.Unlock()
	}
	return idx, true, nil
}

// insertKeyed is InsertHashed into a keyed store (vector x, hash h).
func (s *Store) insertKeyed(x, h, link uint64, lock bool) (uint32, bool, error) {
	if !lock {
		return s.putKeyed(x, h, link, false)
	}
	sh := &s.shards[h>>(64-shardBits)]
	sh.mu.Lock()
	idx, isNew, err := s.putKeyed(x, h, link, true)
	sh.mu.Unlock()
	return idx, isNew, err
}

// InsertWord is InsertHashed(vec, h, link, false) into a keyed store
// ([Store.Keyed]) of the one-word vector vec = {x}, in one call, for its
// one writer's inner loop.
func (s *Store) InsertWord(x, h, link uint64) (idx uint32, isNew bool, err error) {
	return s.putKeyed(x, h, link, false)
}

// putKeyed is insertKeyed's insert; publish stores the slot atomically,
// for a caller that holds the shard's lock while others may read.
func (s *Store) putKeyed(x, h, link uint64, publish bool) (idx uint32, isNew bool, err error) {
	if x&keyedMark != 0 {
		panic("wrapcheck internal error: a vector of more bits than its store was made for")
	}
	si := h >> (64 - shardBits)
	e := x | keyedMark
	tab := *s.tabs[si].Load()
	mask := uint64(len(tab) - 1)
	i := (h >> 32) & mask
	for {
		t := atomic.LoadUint64(&tab[i])
		if t == e {
			return NoIndex, false, nil
		}
		if t == 0 {
			break
		}
		i = (i + 1) & mask
	}
	n := s.n.Add(1) - 1
	if n >= s.limit {
		s.n.Add(-1)
		return 0, false, ErrStoreFull
	}
	idx = uint32(n)
	rec := s.record(idx)
	rec[0], rec[1] = link, x
	if publish {
		atomic.StoreUint64(&tab[i], e) // after the record
	} else {
		tab[i] = e
	}
	sh := &s.shards[si]
	sh.used++
	if sh.used*4 > int64(len(tab))*3 {
		s.grow(si)
	}
	return idx, true, nil
}

// An IndexBlock is a range of store indexes reserved by one goroutine
// for the vectors it inserts with [Store.InsertBlock]: goroutines that
// insert concurrently then neither increment one shared counter per
// vector nor write their records on the same cache lines (consecutive
// indexes share a line). The indexes of a block are in insertion order
// within the goroutine only; an index says nothing about the order of
// inserts across goroutines, as with [Store.Insert] from several. The
// zero value is an empty block; [Store.Release] returns the unused rest.
type IndexBlock struct {
	next, end uint32
	// pend counts per shard the entries this block's goroutine added to
	// the shard's table and not yet to its count (Store.count).
	pend [nShards]uint32
}

// InsertBlock is [Store.InsertHashed] for use concurrently with other
// InsertBlock calls, taking the index of a new vector from blk
// (reserving a new block of indexes when blk is used up). It takes no
// lock: a new vector claims its table slot by a compare-and-swap. Only
// one goroutine may use blk at a time, and it must call [Store.Release]
// before the indexes it took are read by End or the next reservation.
// InsertBlock must not run concurrently with Insert or InsertHashed
// (which lock the shards instead) on one store.
func (s *Store) InsertBlock(vec []uint64, h, link uint64, blk *IndexBlock) (idx uint32, isNew bool, err error) {
	return s.insertBlock(vec, h, link, blk, true)
}

// ErrGrowing is returned by [Store.TryInsertBlock] when the vector's
// shard is being grown by another goroutine: nothing was inserted.
var ErrGrowing = errors.New("machine: the shard's table is being grown")

// TryInsertBlock is [Store.InsertBlock], except that where InsertBlock
// would wait for another goroutine's growth of the vector's shard, it
// returns [ErrGrowing] at once, having inserted nothing; the caller
// tries again later (a growth takes a while: all the shards reach their
// bound at about the same time, and a goroutine that waited for each
// growth it met would spend a growth storm waiting). It grows the table
// itself when the vector is the one that needs the growth.
func (s *Store) TryInsertBlock(vec []uint64, h, link uint64, blk *IndexBlock) (idx uint32, isNew bool, err error) {
	return s.insertBlock(vec, h, link, blk, false)
}

func (s *Store) insertBlock(vec []uint64, h, link uint64, blk *IndexBlock, wait bool) (idx uint32, isNew bool, err error) {
	if s.keyed || s.lw == 0 {
		panic("wrapcheck internal error: InsertBlock on a keyed store or one without link words")
	}
	si := h >> (64 - shardBits)
	// Look up first, as InsertHashed does; only a new vector (or a
	// concurrent insert) goes on to insertShared.
	j, ok, tp, i := s.lookup(si, vec, h)
	if ok {
		return j, false, nil
	}
	return s.insertShared(si, vec, h, link, blk, tp, i, wait)
}

// insertShared is InsertBlock's insert of a vector that lookup did not
// find in table *tp, whose probe stopped at slot i: it takes no lock. A
// new vector is counted in its shard first (a count over 3/4 of the
// table grows it instead, so that no table is ever full and every probe
// ends), its record is written at blk's next index, and it claims the
// empty slot with a compare-and-swap, which publishes the record. A
// goroutine that loses the slot to another takes its count back, reads
// what won the slot (the same vector: a duplicate; another: it probes
// on) and writes its record again at the same index next time. Entries
// only ever go from empty to set, and a table replaced by growth has
// every empty slot frozen first, so a probe of a stale table either
// finds the vector or reaches a frozen slot, and starts again in the
// new table.
func (s *Store) insertShared(si uint64, vec []uint64, h, link uint64, blk *IndexBlock, tp *[]uint64, i uint64, wait bool) (uint32, bool, error) {
	sh := &s.shards[si]
	tag := s.slotTag(vec, h)
	for {
		tab := *tp
		mask := uint64(len(tab) - 1)
		for {
			e := atomic.LoadUint64(&tab[i])
			if e == 0 {
				if !s.count(sh, blk, si, len(tab)) {
					if !s.growShared(si, wait) {
						return 0, false, ErrGrowing
					}
					break
				}
				if blk.next == blk.end && !s.reserve(blk) {
					s.uncount(sh, blk, si)
					return 0, false, ErrStoreFull
				}
				idx := blk.next
				rec := s.record(idx)
				rec[0] = link
				copy(rec[1:], vec)
				if atomic.CompareAndSwapUint64(&tab[i], 0, tag|uint64(idx+1)) {
					blk.next++
					return idx, true, nil
				}
				s.uncount(sh, blk, si)
				e = atomic.LoadUint64(&tab[i])
			}
			if e == frozen {
				// A growth replaces this table: wait for it to end, or
				// report it unless it has ended.
				if !wait {
					if s.tabs[si].Load() == tp {
						return 0, false, ErrGrowing
					}
					break
				}
				sh.grow.Lock()
				sh.grow.Unlock()
				break
			}
			if e&tagMask == tag {
				j := uint32(e) - 1
				if s.inSlot || equalWords(s.Vector(j), vec) {
					return j, false, nil
				}
			}
			i = (i + 1) & mask
		}
		tp = s.tabs[si].Load()
		i = (h >> 32) & uint64(len(*tp)-1)
	}
}

// count counts an entry that blk's goroutine is about to add to shard
// si's table of size slots, and reports false when the table must grow
// first (its count would pass 3/4 of size). Counted at once, every new
// entry of two workers would be an atomic add on a cache line the other
// core wrote last (two thirds of insertShared's samples with two
// workers): while the table is far from its bound, the entry is counted
// in blk.pend instead, and the pending entries join the shard's count
// when they reach (bound - count) / (4 * writers). So the entries
// pending over all writers stay below a quarter of the bound, and a
// table holds at most 15/16 of its size, never all of it; near the bound
// each entry is counted at once, as without pending counts.
func (s *Store) count(sh *shard, blk *IndexBlock, si uint64, size int) bool {
	p := &blk.pend[si]
	if w := s.writers; w > 0 {
		// (p+1) < ⌊room/(4w)⌋, without the division (tens of cycles
		// at every new state): p+2 ≤ ⌊room/(4w)⌋ ⟺ (p+2)·4w ≤ room.
		room := int64(size)*3/4 - atomic.LoadInt64(&sh.used)
		if (int64(*p)+2)*4*w <= room {
			*p++
			return true
		}
	}
	n := atomic.AddInt64(&sh.used, int64(*p)+1)
	*p = 0
	if n*4 > int64(size)*3 {
		atomic.AddInt64(&sh.used, -1) // the pending entries stay counted
		return false
	}
	return true
}

// uncount takes back the entry count counted, which was not added.
func (s *Store) uncount(sh *shard, blk *IndexBlock, si uint64) {
	if p := &blk.pend[si]; *p > 0 {
		*p--
		return
	}
	atomic.AddInt64(&sh.used, -1)
}

// SetWriters declares that at most n goroutines insert with
// [Store.InsertBlock] at once, which lets each of them count its new
// entries in its block for a while (Store.count); 0, the default,
// counts every entry in the shard at once. The caller is the only
// goroutine using the store.
func (s *Store) SetWriters(n int) { s.writers = int64(n) }

// growShared doubles shard si's table unless it has room for one more
// counted entry within its 3/4 load, while other goroutines may be
// inserting into it without a lock: every empty slot is frozen (a
// compare-and-swap that an insert's own wins against, or loses to)
// before the entries are copied, so each entry reaches the new table
// once. With wait false it grows nothing and reports false when another
// goroutine holds the shard's growth (it is growing the table, or
// finding that it need not).
func (s *Store) growShared(si uint64, wait bool) bool {
	sh := &s.shards[si]
	if !wait {
		if !sh.grow.TryLock() {
			return false
		}
	} else {
		sh.grow.Lock()
	}
	old := *s.tabs[si].Load()
	if (atomic.LoadInt64(&sh.used)+1)*4 > int64(len(old))*3 {
		tab := prefault(make([]uint64, 2*len(old)))
		for k := range old {
			e := atomic.LoadUint64(&old[k])
			if e == 0 {
				if atomic.CompareAndSwapUint64(&old[k], 0, frozen) {
					continue
				}
				e = atomic.LoadUint64(&old[k]) // set by an insert: final
			}
			s.place(tab, e)
		}
		s.tabs[si].Store(&tab)
		s.bytes.Add(int64(8 * (len(tab) - len(old))))
		s.tables.Add(int64(8 * (len(tab) - len(old))))
	}
	sh.grow.Unlock()
	return true
}

// reserve refills blk with the next indexes, at most blockSize and no
// more than one chunk holds (a block spans at most two chunks); it
// reports false when the store is full.
func (s *Store) reserve(blk *IndexBlock) bool {
	k := int64(min(blockSize, 1<<s.shift))
	end := s.n.Add(k)
	start := end - k
	if end > s.limit {
		// Give back what lies past the limit; a concurrent reservation
		// past it gives back its own.
		s.n.Add(-(end - max(start, s.limit)))
		if start >= s.limit {
			return false
		}
		end = s.limit
	}
	blk.next, blk.end = uint32(start), uint32(end)
	return true
}

// Release returns the unused indexes of blk and empties it: the top of
// the store's indexes is taken back, others below End are marked with
// the link word [FreeLink] and no longer counted by Len. It returns the
// indexes left as such a hole, lo..hi-1 (lo == hi: none). The caller is
// the only goroutine using the store.
func (s *Store) Release(blk *IndexBlock) (lo, hi uint32) {
	for si, n := range blk.pend {
		if n > 0 {
			s.shards[si].used += int64(n)
		}
	}
	if blk.next < blk.end {
		if int64(blk.end) == s.n.Load() {
			s.n.Store(int64(blk.next))
		} else {
			lo, hi = blk.next, blk.end
			for i := lo; i < hi; i++ {
				s.record(i)[0] = FreeLink
			}
			s.holes.Add(int64(hi - lo))
		}
	}
	*blk = IndexBlock{}
	return lo, hi
}

// lookup finds vec in shard si without its lock; not found, it returns
// the table it read and the empty slot it stopped at.
func (s *Store) lookup(si uint64, vec []uint64, h uint64) (idx uint32, found bool, tp *[]uint64, slot uint64) {
	tag := h & tagMask
	if s.inSlot {
		tag = vec[0] << 32 // a vector too wide for its slot matches none (InsertBlock panics)
	}
	tp = s.tabs[si].Load()
	tab := *tp
	mask := uint64(len(tab) - 1)
	for i := (h >> 32) & mask; ; i = (i + 1) & mask {
		e := atomic.LoadUint64(&tab[i])
		if e == 0 || e == frozen {
			return 0, false, tp, i
		}
		if e&tagMask == tag {
			if j := uint32(e) - 1; s.inSlot || equalWords(s.Vector(j), vec) {
				return j, true, nil, 0
			}
		}
	}
}

// record returns the writable record of idx, allocating its chunk.
func (s *Store) record(idx uint32) []uint64 {
	ci := int(idx >> s.shift)
	var cp *[]uint64
	if dir := *s.chunks.Load(); ci < len(dir) {
		cp = dir[ci].Load()
	}
	if cp == nil {
		s.alloc.Lock()
		dir := *s.chunks.Load()
		if ci >= len(dir) {
			// Grow the directory: readers of the old one still find
			// every chunk allocated before (its entries are not
			// cleared), and a reader of an index in a newer chunk
			// learnt that index after the new directory was stored.
			nd := make([]atomic.Pointer[[]uint64], min(max(2*len(dir), ci+1), s.dirMax))
			for i := range dir {
				nd[i].Store(dir[i].Load())
			}
			s.chunks.Store(&nd)
			s.bytes.Add(int64(8 * (len(nd) - len(dir))))
			dir = nd
		}
		cp = dir[ci].Load()
		if cp == nil {
			c := make([]uint64, (1<<s.shift)*s.stride)
			cp = &c
			dir[ci].Store(cp)
			s.bytes.Add(int64(len(c) * 8))
		}
		s.alloc.Unlock()
	}
	o := int(idx&s.mask) * s.stride
	return (*cp)[o : o+s.stride]
}

// grow doubles shard si's table; the caller holds the shard's lock.
func (s *Store) grow(si uint64) {
	old := *s.tabs[si].Load()
	tab := prefault(make([]uint64, 2*len(old)))
	for _, e := range old {
		if e != 0 {
			s.place(tab, e)
		}
	}
	s.tabs[si].Store(&tab)
	s.bytes.Add(int64(8 * (len(tab) - len(old))))
	s.tables.Add(int64(8 * (len(tab) - len(old))))
}

// prefault writes a zero into every 4 KiB page of tab, a table just
// made, and returns it. Fresh memory that is read before it is written
// (a table's probes) is mapped to the kernel's shared zero page, and the
// first write to each page then replaces it, which flushes the TLB of
// every core running the process: with two workers an inter-processor
// interrupt per page, which on a virtual machine is an exit to the
// hypervisor on both cores (11% of the two-worker profile of mutex N=6 on
// a KVM guest, docs/impl.md, "Two workers"). Written first, each page is
// allocated at its first fault, once.
func prefault(tab []uint64) []uint64 {
	for i := 0; i < len(tab); i += 512 {
		tab[i] = 0
	}
	return tab
}

// place puts entry e of a table being filled, which no other goroutine
// sees yet, into tab.
func (s *Store) place(tab []uint64, e uint64) {
	mask := uint64(len(tab) - 1)
	i := (e >> 32) & mask // the position bits are part of the stored tag
	if s.inSlot {
		i = (hashWord(e>>32) >> 32) & mask
	} else if s.keyed {
		i = (hashWord(e&^keyedMark) >> 32) & mask
	}
	for tab[i] != 0 {
		i = (i + 1) & mask
	}
	tab[i] = e
}

// hashWord is hashWords of the one-word vector {x}.
func hashWord(x uint64) uint64 {
	hi, lo := bits.Mul64(x^hashK0, (hashK2^hashK1)^hashK1)
	h := hi ^ lo
	hi, lo = bits.Mul64(h^hashK2, hashK0)
	h = hi ^ lo
	return h ^ h>>29
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TouchRecord loads the first word of the record that the first table
// slot of hash h names, if its tag matches: a duplicate's vector is then
// in cache for the comparison of the following insert. When the slots
// hold the vectors (InSlot), it loads the record of the first slot's
// vector if that is vec, for its link word; vec is unused otherwise.
// Like Touch, it takes no lock and may read a stale table. The result
// means nothing; a caller sums it into a sink so that the load is not
// optimised away.
func (s *Store) TouchRecord(vec []uint64, h uint64) uint64 {
	tab := *s.tabs[h>>(64-shardBits)].Load()
	return s.TouchRecordAt(&tab[(h>>32)&uint64(len(tab)-1)], vec, h)
}

// TouchRecordAt is TouchRecord with the address of the first table slot
// of hash h given, as [Store.SlotAddr] returned it (so that a caller that
// loaded the slot already does not look its table up again).
func (s *Store) TouchRecordAt(slot *uint64, vec []uint64, h uint64) uint64 {
	if s.keyed {
		return 0 // no record is read for a look-up
	}
	e := atomic.LoadUint64(slot)
	tag := h & tagMask
	if s.inSlot {
		tag = vec[0] << 32
	}
	if e == 0 || e&tagMask != tag {
		return 0
	}
	idx := uint32(e) - 1
	dir := *s.chunks.Load()
	if int(idx>>s.shift) >= len(dir) {
		return 0
	}
	cp := dir[idx>>s.shift].Load()
	if cp == nil {
		return 0
	}
	return (*cp)[int(idx&s.mask)*s.stride+s.lw]
}

// TouchBatch is the number of successors whose table slots TouchSuccs
// loads in one tight loop.
const TouchBatch = 64

// TouchSuccs loads the table slots of the successors succs (hashes in
// their H) ahead of their inserts, TouchBatch at a time: their addresses
// first (loads that hit the cache), then the slots in a loop of a few
// instructions a load, so that the out-of-order window holds the misses
// of the whole batch, not of the few successors whose address
// computations fit in it; then, unless the slots hold the vectors, the
// batch's records of likely duplicates, for the insert's comparison
// (vecs: the successors' vectors, w words each, one after the other: a
// program of no state words inserts a one-word zero). The addresses
// stay on the stack (no write barrier). It returns a sum of what it
// read, for the caller to keep where the compiler cannot drop the loads.
func (s *Store) TouchSuccs(succs []Succ, vecs []uint64, w int) uint64 {
	var room [TouchBatch]*uint64
	var sink uint64
	rec := !s.InSlot()
	for len(succs) > 0 {
		batch := succs[:min(TouchBatch, len(succs))]
		refs := room[:len(batch)]
		for i := range refs {
			refs[i] = s.SlotAddr(batch[i].H)
		}
		for _, r := range refs {
			sink += atomic.LoadUint64(r)
		}
		if rec {
			for i, r := range refs {
				sink += s.TouchRecordAt(r, vecs[i*w:(i+1)*w:(i+1)*w], batch[i].H)
			}
			vecs = vecs[len(batch)*w:]
		}
		succs = succs[len(batch):]
	}
	return sink
}

// Touch loads the table slot of hash h so that a following insert finds
// it in cache. It takes no lock and may read a stale table. The result
// means nothing, as TouchRecord's.
func (s *Store) Touch(h uint64) uint64 {
	tab := *s.tabs[h>>(64-shardBits)].Load()
	return atomic.LoadUint64(&tab[(h>>32)&uint64(len(tab)-1)])
}

// SlotAddr returns the address of the first table slot of hash h, for a
// caller that loads many of them in a tight loop ahead of their inserts,
// so that more of their cache misses are in flight at once than a loop
// of Touch calls allows (each Touch is some 15 instructions of address
// computation around its one load, and the out-of-order window holds
// only so many). Like Touch, it takes no lock and may point into a
// stale table; read the slot atomically (a table is never written but
// by atomic stores while others may read it), and never write it.
func (s *Store) SlotAddr(h uint64) *uint64 {
	tab := *s.tabs[h>>(64-shardBits)].Load()
	return &tab[(h>>32)&uint64(len(tab)-1)]
}

// Reset empties the store for reuse, keeping its chunks and tables; the
// caller is the only goroutine using the store.
func (s *Store) Reset() {
	s.n.Store(0)
	s.holes.Store(0)
	for i := range s.shards {
		sh := &s.shards[i]
		if sh.used > 0 {
			clear(*s.tabs[i].Load())
			sh.used = 0
		}
	}
}

package machine

import (
	"errors"
	"sync"
	"sync/atomic"
)

// ErrStoreFull is returned by [Store.Insert] when the store holds the
// maximum number of states: 2^32-2, or fewer when the vectors are so wide
// that they would take more than 2^40 bytes.
var ErrStoreFull = errors.New("checker: visited store is full (2^32-2 states, or 2^40 bytes of vectors)")

const (
	maxChunkShift = 15      // at most 32768 records per arena chunk
	maxChunkBytes = 4 << 20 // a chunk takes at most 4 MiB, unless one record is larger
	maxArenaBytes = 1 << 40 // the chunk directory covers at most this much
	shardBits     = 8
	nShards       = 1 << shardBits
	shardInit     = 256 // initial table entries per shard
	tagMask       = 0xFFFFFFFF00000000
	cacheLine     = 64
)

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
// The zero value is not usable; call [NewStore]. Insert, Vector, Link and
// Len are safe for concurrent use. A vector written by Insert is visible
// to every goroutine that obtained its index from Insert.
type Store struct {
	width  int    // payload words per vector
	stride int    // record words: link + payload
	shift  uint   // records per chunk: 1 << shift
	mask   uint32 // 1<<shift - 1
	limit  int64  // most records the chunk directory covers
	chunks []atomic.Pointer[[]uint64]
	// n is incremented by every new state: on a cache line of its own,
	// so that the workers' reads of the fields above (every Vector and
	// Link) do not miss whenever another worker stores a state.
	_      [cacheLine]byte
	n      atomic.Int64
	_      [cacheLine - 8]byte
	alloc  sync.Mutex
	bytes  atomic.Int64 // arena chunks, tables and chunk directory
	tables atomic.Int64 // hash-table bytes
	shards [nShards]shard
}

type shard struct {
	mu   sync.Mutex
	tab  atomic.Pointer[[]uint64] // tag<<32 | idx+1; 0 = empty; entries written atomically
	used int
	_    [64 - 8 - 8 - 8]byte
}

// NewStore returns an empty store of vectors of width words (width >= 1).
func NewStore(width int) *Store {
	s := &Store{width: width, stride: width + 1, shift: maxChunkShift}
	for s.shift > 0 && (1<<s.shift)*s.stride*8 > maxChunkBytes {
		s.shift--
	}
	s.mask = 1<<s.shift - 1
	chunkBytes := int64(1<<s.shift) * int64(s.stride) * 8
	n := int64(1) << (32 - s.shift)
	n = min(n, max(1, maxArenaBytes/chunkBytes))
	s.limit = min(int64(MaxStates), n<<s.shift)
	s.chunks = make([]atomic.Pointer[[]uint64], n)
	for i := range s.shards {
		t := make([]uint64, shardInit)
		s.shards[i].tab.Store(&t)
	}
	s.bytes.Add(int64(nShards*shardInit*8) + n*8)
	s.tables.Add(int64(nShards * shardInit * 8))
	return s
}

// Width returns the number of words of every vector.
func (s *Store) Width() int { return s.width }

// Len returns the number of stored vectors.
func (s *Store) Len() int64 { return s.n.Load() }

// Bytes returns the memory held by the store: arena chunks and tables.
func (s *Store) Bytes() int64 { return s.bytes.Load() }

// BytesPerVector returns the store's memory per stored vector: its
// record (link and vector words) plus its share of the hash tables. The
// preallocated chunk directory and the unused tail of the last chunk are
// not counted.
func (s *Store) BytesPerVector() float64 {
	n := s.n.Load()
	if n == 0 {
		return 0
	}
	return float64(s.stride*8) + float64(s.tables.Load())/float64(n)
}

// Hash returns the hash the store uses for vec.
func (s *Store) Hash(vec []uint64) uint64 { return hashWords(vec) }

// Vector returns the stored vector idx (do not modify it).
func (s *Store) Vector(idx uint32) []uint64 {
	c := *s.chunks[idx>>s.shift].Load()
	o := int(idx&s.mask)*s.stride + 1
	return c[o : o+s.width : o+s.width]
}

// Link returns the link word of vector idx; use sync/atomic to access it
// while other goroutines may.
func (s *Store) Link(idx uint32) *uint64 {
	c := *s.chunks[idx>>s.shift].Load()
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
	sh := &s.shards[h>>(64-shardBits)]
	tag := h & tagMask
	if lock {
		// Look up without the lock first: an entry is published (atomic
		// store) after its record is written, so a vector found here is
		// complete. Missing it (a concurrent insert, or a table replaced
		// by growth) only sends us to the locked path below.
		if j, ok := s.lookup(sh, vec, h); ok {
			return j, false, nil
		}
		sh.mu.Lock()
	}
	tab := *sh.tab.Load()
	mask := uint64(len(tab) - 1)
	i := (h >> 32) & mask
	for {
		e := atomic.LoadUint64(&tab[i])
		if e == 0 {
			break
		}
		if e&tagMask == tag {
			j := uint32(e) - 1
			if equalWords(s.Vector(j), vec) {
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
	rec[0] = link
	copy(rec[1:], vec)
	atomic.StoreUint64(&tab[i], tag|uint64(idx+1))
	sh.used++
	if sh.used*4 > len(tab)*3 {
		s.grow(sh)
	}
	if lock {
		sh.mu.Unlock()
	}
	return idx, true, nil
}

// lookup finds vec in a shard without its lock.
func (s *Store) lookup(sh *shard, vec []uint64, h uint64) (uint32, bool) {
	tag := h & tagMask
	tab := *sh.tab.Load()
	mask := uint64(len(tab) - 1)
	for i := (h >> 32) & mask; ; i = (i + 1) & mask {
		e := atomic.LoadUint64(&tab[i])
		if e == 0 {
			return 0, false
		}
		if e&tagMask == tag {
			if j := uint32(e) - 1; equalWords(s.Vector(j), vec) {
				return j, true
			}
		}
	}
}

// record returns the writable record of idx, allocating its chunk.
func (s *Store) record(idx uint32) []uint64 {
	cp := s.chunks[idx>>s.shift].Load()
	if cp == nil {
		s.alloc.Lock()
		cp = s.chunks[idx>>s.shift].Load()
		if cp == nil {
			c := make([]uint64, (1<<s.shift)*s.stride)
			cp = &c
			s.chunks[idx>>s.shift].Store(cp)
			s.bytes.Add(int64(len(c) * 8))
		}
		s.alloc.Unlock()
	}
	o := int(idx&s.mask) * s.stride
	return (*cp)[o : o+s.stride]
}

// grow doubles a shard's table; the caller holds the shard's lock.
func (s *Store) grow(sh *shard) {
	old := *sh.tab.Load()
	tab := make([]uint64, 2*len(old))
	mask := uint64(len(tab) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := (e >> 32) & mask // the position bits are part of the stored tag
		for tab[i] != 0 {
			i = (i + 1) & mask
		}
		tab[i] = e
	}
	sh.tab.Store(&tab)
	s.bytes.Add(int64(8 * (len(tab) - len(old))))
	s.tables.Add(int64(8 * (len(tab) - len(old))))
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
// in cache for the comparison of the following insert. Like Touch, it
// takes no lock and may read a stale table. The result means nothing; a
// caller sums it into a sink so that the load is not optimised away.
func (s *Store) TouchRecord(h uint64) uint64 {
	tab := *s.shards[h>>(64-shardBits)].tab.Load()
	e := atomic.LoadUint64(&tab[(h>>32)&uint64(len(tab)-1)])
	if e == 0 || e&tagMask != h&tagMask {
		return 0
	}
	idx := uint32(e) - 1
	cp := s.chunks[idx>>s.shift].Load()
	if cp == nil {
		return 0
	}
	return (*cp)[int(idx&s.mask)*s.stride+1]
}

// Touch loads the table slot of hash h so that a following insert finds
// it in cache. It takes no lock and may read a stale table. The result
// means nothing, as TouchRecord's.
func (s *Store) Touch(h uint64) uint64 {
	tab := *s.shards[h>>(64-shardBits)].tab.Load()
	return atomic.LoadUint64(&tab[(h>>32)&uint64(len(tab)-1)])
}

// Reset empties the store for reuse, keeping its chunks and tables; the
// caller is the only goroutine using the store.
func (s *Store) Reset() {
	s.n.Store(0)
	for i := range s.shards {
		sh := &s.shards[i]
		if sh.used > 0 {
			clear(*sh.tab.Load())
			sh.used = 0
		}
	}
}

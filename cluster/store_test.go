package cluster

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

var testMan = Manifest{Spec: "abc123", Workers: 2}

// testBound admits the test frames: up to 8 records of 2 KiB.
var testBound = Bound{Records: 8, Record: 2 << 10}

// buckets returns a fresh mem:// and file:// bucket.
func buckets(t *testing.T) map[string]func() (string, Bucket) {
	t.Helper()
	return map[string]func() (string, Bucket){
		"mem": func() (string, Bucket) { return "mem://", NewMemBucket() },
		"file": func() (string, Bucket) {
			dir := t.TempDir()
			u := "file://" + filepath.ToSlash(dir) + "?metadata=skip"
			b, err := OpenBucket(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return u, b
		},
	}
}

func TestStoreRoundTrip(t *testing.T) {
	for name, open := range buckets(t) {
		for _, compress := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/compress=%t", name, compress), func(t *testing.T) {
				roundTrip(t, open, compress)
			})
		}
	}
}

// roundTrip is TestStoreRoundTrip on one bucket, with or without zstd.
func roundTrip(t *testing.T, open func() (string, Bucket), compress bool) {
	ctx := context.Background()
	u, b := open()
	st, err := Attach(ctx, u, b, testMan)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.Compress = compress
	if err := st.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	n := Name{Kind: KindBatch, Search: 0, Level: 3, Src: 1, Dst: 0}
	want := []byte(strings.Repeat("successor ", 1000))
	if _, err := st.Put(ctx, n, 7, want); err != nil {
		t.Fatal(err)
	}
	// Written once: a second write of the same file keeps the first.
	if _, err := st.Put(ctx, n, 8, []byte("other")); err != nil {
		t.Fatal(err)
	}
	count, got, err := st.Get(ctx, n, testBound)
	if err != nil {
		t.Fatal(err)
	}
	if count != 7 {
		t.Errorf("count = %d, want 7", count)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
	_, _, err = st.Get(ctx, Name{Kind: KindBatch, Level: 4, Src: 1, Dst: 0}, testBound)
	if !IsNotExist(err) {
		t.Errorf("Get of a missing file: %v, want not written", err)
	}
	// Another worker's file is not ours to write.
	if _, err := st.Put(ctx, Name{Kind: KindStates, Level: 1, Src: 0, Dst: 0}, 0, nil); err == nil {
		t.Error("worker 1 wrote a file of worker 0")
	}
}

func TestStoreForeignRun(t *testing.T) {
	ctx := context.Background()
	for name, open := range buckets(t) {
		t.Run(name, func(t *testing.T) {
			u, b := open()
			st, err := Attach(ctx, u, b, testMan)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			// The same run opens again.
			if st, err = Attach(ctx, u, b, testMan); err != nil {
				t.Fatal(err)
			}
			st.Close()
			for _, tt := range []struct {
				m    Manifest
				want string // the whole message, the store's URL written $URL
			}{
				{Manifest{Spec: "other", Workers: 2}, "store $URL holds another run: another spec or other options (spec hash abc123, not other); use another prefix or empty this one"},
				{Manifest{Spec: "abc123", Workers: 4}, "store $URL holds another run: 2 workers, not 4; use another prefix or empty this one"},
			} {
				_, err := Attach(ctx, u, b, tt.m)
				var fe *ForeignRunError
				if !errors.As(err, &fe) {
					t.Fatalf("Attach(%+v) = %v, want a ForeignRunError", tt.m, err)
				}
				if diff := cmp.Diff(tt.want, strings.ReplaceAll(err.Error(), u, "$URL")); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			}
			if err := overwrite(ctx, b, "run.json", []byte("garbage")); err != nil {
				t.Fatal(err)
			}
			_, err = Attach(ctx, u, b, testMan)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Attach on a garbage manifest = %v, want a CorruptError", err)
			}
		})
	}
}

func TestStoreLease(t *testing.T) {
	ctx := context.Background()
	for name, open := range buckets(t) {
		t.Run(name, func(t *testing.T) {
			u, b := open()
			old, err := Attach(ctx, u, b, testMan)
			if err != nil {
				t.Fatal(err)
			}
			old.LeaseEvery = 0 // check the lease before every write
			if err := old.Acquire(ctx, 0); err != nil {
				t.Fatal(err)
			}
			n := Name{Kind: KindSummary, Level: 1}
			if _, err := old.Put(ctx, n, 1, []byte("x")); err != nil {
				t.Fatal(err)
			}
			// A restarted worker 0 takes the next generation; the old one
			// must not write any more.
			cur, err := Attach(ctx, u, b, testMan)
			if err != nil {
				t.Fatal(err)
			}
			if err := cur.Acquire(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if got := []int{old.Generation(), cur.Generation()}; !cmp.Equal(got, []int{1, 2}) {
				t.Errorf("generations %v, want [1 2]", got)
			}
			if _, err := old.Put(ctx, Name{Kind: KindSummary, Level: 2}, 1, []byte("x")); !errors.Is(err, ErrStale) {
				t.Errorf("stale Put = %v, want ErrStale", err)
			}
			if _, err := cur.Put(ctx, Name{Kind: KindSummary, Level: 2}, 1, []byte("x")); err != nil {
				t.Errorf("current Put: %v", err)
			}
			// Another index has its own leases.
			other, _ := Attach(ctx, u, b, testMan)
			if err := other.Acquire(ctx, 1); err != nil || other.Generation() != 1 {
				t.Errorf("index 1: generation %d, %v", other.Generation(), err)
			}
		})
	}
}

// TestStoreBadFiles: every damaged or misplaced file is a CorruptError
// that says what is wrong.
func TestStoreBadFiles(t *testing.T) {
	ctx := context.Background()
	n := Name{Kind: KindStates, Level: 2, Src: 0, Dst: 0}
	tests := []struct {
		name   string
		damage func(good, foreign []byte) []byte
		key    string // where the damaged bytes go; "" n's key
		want   string // the message after "store file KEY: "
	}{
		{"truncated-header", func(g, _ []byte) []byte { return g[:20] }, "", "truncated: 20 bytes"},
		{"truncated-magic", func(g, _ []byte) []byte { return g[:3] }, "", "truncated: 3 bytes"},
		{"truncated-payload", func(g, _ []byte) []byte { return g[:len(g)-20] }, "", "truncated: 80 bytes, the header says 100"},
		{"empty", func(g, _ []byte) []byte { return nil }, "", "truncated: 0 bytes"},
		{"flipped-bit", func(g, _ []byte) []byte {
			b := append([]byte(nil), g...)
			b[headerSize+3] ^= 0x10
			return b
		}, "", "checksum mismatch: the file is corrupt"},
		{"garbage", func(g, _ []byte) []byte { return []byte("{\"not\": \"a frame\"}") }, "", "not a wrapcheck store file of format 3"},
		{"foreign", func(_, f []byte) []byte { return f }, "", "written by another run (run ee2dffc6275a174d, this run is 83a306e9a4f5f324)"},
		{"misplaced", func(g, _ []byte) []byte { return g }, "s0/L000003/states-0.wc", "holds s0/L000002/states-0.wc, not s0/L000003/states-0.wc"},
		{"appended", func(g, _ []byte) []byte { return append(append([]byte(nil), g...), 0) }, "", "longer than the 100 bytes the header says"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewMemBucket()
			fb := NewMemBucket()
			st, err := Attach(ctx, "mem://", b, testMan)
			if err != nil {
				t.Fatal(err)
			}
			fst, err := Attach(ctx, "mem://", fb, Manifest{Spec: "another", Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Store{st, fst} {
				s.Compress = true
				if err := s.Acquire(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Put(ctx, n, 3, []byte(strings.Repeat("state", 100))); err != nil {
					t.Fatal(err)
				}
			}
			good, _ := ReadAll(ctx, b, n.Key(), 1<<20)
			foreign, _ := ReadAll(ctx, fb, n.Key(), 1<<20)
			key := tt.key
			if key == "" {
				key = n.Key()
			}
			if err := overwrite(ctx, b, key, tt.damage(good, foreign)); err != nil {
				t.Fatal(err)
			}
			var name Name
			switch key {
			case n.Key():
				name = n
			default:
				name = Name{Kind: KindStates, Level: 3}
			}
			_, _, err = st.Get(ctx, name, testBound)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Get = %v, want a CorruptError", err)
			}
			if diff := cmp.Diff("store file "+key+": "+tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStoreFileLayout pins the names of the files on disk, which
// deploy/ and docs/distributed.md show.
func TestStoreFileLayout(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	u := "file://" + filepath.ToSlash(dir) + "?metadata=skip"
	st, err := Open(ctx, u, testMan)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Acquire(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for _, n := range []Name{
		{Kind: KindBatch, Level: 1, Src: 0, Dst: 1},
		{Kind: KindStates, Level: 1},
		{Kind: KindSummary, Level: 1},
		{Kind: KindResult, Search: 1},
	} {
		if _, err := st.Put(ctx, n, 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	want := []string{"lease/0/00000001", "run.json", "s0/L000001/batch-0-1.wc", "s0/L000001/states-0.wc", "s0/L000001/summary-0.wc", "s1/result.wc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := url.Parse(u); err != nil {
		t.Fatal(err)
	}
}

// toctouEngine returns the model of examples/approval/toctou.wrap and
// its engine.
func toctouEngine(t *testing.T) (*spec.Model, *engine) {
	t.Helper()
	m := load(t, "../examples/approval/toctou.wrap", nil)
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEngine(prog, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, e
}

// TestSummaryPlausible: a summary frame with a good checksum but indexes
// out of range for the model is refused, not used.
func TestSummaryPlausible(t *testing.T) {
	m, e := toctouEngine(t)
	w := &worker{e: e, witnessed: make([]bool, len(m.Invariants))}
	good := func() *summary {
		return &summary{keys: []key{{Pos: 0, Ord: 1}}, fired: make([]int64, len(m.Actions)), witnessed: make([]bool, len(m.Invariants)), deadlock: -1}
	}
	tests := []struct {
		name string
		edit func(s *summary)
		want bool
	}{
		{"good", func(*summary) {}, true},
		{"fired", func(s *summary) { s.fired = nil }, false},
		{"bad-inv", func(s *summary) { s.bad = &badState{local: 0, b: bad{inv: len(m.Invariants)}} }, false},
		{"bad-local", func(s *summary) { s.bad = &badState{local: -1} }, false},
		{"fail-action", func(s *summary) {
			s.fail = &failure{ex: &machine.ExecError{Kind: machine.Assertion, Action: len(m.Actions)}}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good()
			tt.edit(s)
			d, err := decodeSummary(s.encode(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.plausible(d); got != tt.want {
				t.Errorf("plausible = %t, want %t", got, tt.want)
			}
		})
	}
}

// overwrite replaces the object key of b with data (files are created
// once by the store; the tests damage them).
func overwrite(ctx context.Context, b Bucket, key string, data []byte) error {
	if err := b.Delete(ctx, key); err != nil {
		return err
	}
	return b.Create(ctx, key, data)
}

// reframe rewrites the header of frame buf with count records and a
// payload of raw bytes (and, when comp is not nil, that compressed
// payload), with a good checksum: a frame made by hand, as frame.py in
// cmd/wrapcheck/testdata/hostile makes one.
func reframe(buf []byte, count, raw uint64, comp []byte) []byte {
	le := binary.LittleEndian
	body := append([]byte(nil), buf[:len(buf)-crcSize]...)
	if comp != nil {
		body = append(body[:headerSize], comp...)
		le.PutUint64(body[60:], uint64(len(comp)))
	}
	le.PutUint64(body[44:], count)
	le.PutUint64(body[52:], raw)
	return le.AppendUint32(body, crc32.Checksum(body, crcTable()))
}

// TestStoreFrameBounds: a frame with a good checksum whose header claims
// more than its reader can need (a payload of 3 GiB for 3 records, more
// records than the run has, more compressed bytes than the payload
// needs) is refused before its payload is read, and a payload that
// decodes to more than its header says (a zstd bomb) is refused after
// decoding no more than that: the reader allocates its decoder's window
// (8 MiB) and the payload, not the 64 MiB the bomb holds.
func TestStoreFrameBounds(t *testing.T) {
	ctx := context.Background()
	n := Name{Kind: KindStates, Level: 2}
	bound := Bound{Records: 8, Record: 200}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	bomb := enc.EncodeAll(make([]byte, 64<<20), nil)
	enc.Close()
	tests := []struct {
		name   string
		damage func(good []byte) []byte
		bound  Bound
		want   string
	}{
		{"claimed-raw", func(g []byte) []byte { return reframe(g, 3, 3<<30, nil) }, bound,
			"a payload of 3221225472 bytes, more than 3 states records can take"},
		{"claimed-count", func(g []byte) []byte { return reframe(g, 3, 500, nil) }, Bound{Records: 2, Record: 200},
			"3 records, more than the 2 the run can need"},
		{"claimed-comp", func(g []byte) []byte {
			b := reframe(g, 3, 500, nil)
			binary.LittleEndian.PutUint64(b[60:], 1<<40)
			return reframe(b, 3, 500, nil)
		}, bound, "1099511627776 compressed bytes, more than a payload of 500 bytes needs"},
		{"bomb", func(g []byte) []byte { return reframe(g, 3, 500<<10, bomb) }, Bound{Records: 8, Record: 1 << 20},
			"payload: more than the 512000 bytes the header says"},
		// A payload stored as is must be as long as the header says.
		{"stored-comp", func(g []byte) []byte {
			b := reframe(g, 3, 500, nil)
			b[9] = codecStored
			return reframe(b, 3, 400, nil)
		}, bound, "28 stored bytes for a payload of 400"},
		{"unknown-codec", func(g []byte) []byte {
			b := append([]byte(nil), g...)
			b[9] = 2
			return reframe(b, 3, 500, nil)
		}, bound, "an unknown codec 2.0.0"},
		{"reserved-byte", func(g []byte) []byte {
			b := append([]byte(nil), g...)
			b[11] = 1
			return reframe(b, 3, 500, nil)
		}, bound, "an unknown codec 1.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewMemBucket()
			st, err := Attach(ctx, "mem://", b, testMan)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			st.Compress = true
			if err := st.Acquire(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Put(ctx, n, 3, []byte(strings.Repeat("state", 100))); err != nil {
				t.Fatal(err)
			}
			good, err := ReadAll(ctx, b, n.Key(), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if err := overwrite(ctx, b, n.Key(), tt.damage(good)); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err = st.Get(ctx, n, tt.bound)
			runtime.ReadMemStats(&after)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Get = %v, want a CorruptError", err)
			}
			if diff := cmp.Diff("store file "+n.Key()+": "+tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("Get allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestSummaryKeysAscend: a summary whose keys do not strictly ascend
// (the ranks of the next level's positions rely on it) does not decode.
func TestSummaryKeysAscend(t *testing.T) {
	tests := []struct {
		name string
		keys []key
		ok   bool
	}{
		{"ascending", []key{{Pos: 0, Ord: 1}, {Pos: 0, Ord: 2}, {Pos: 3, Ord: 0}}, true},
		{"equal", []key{{Pos: 1, Ord: 1}, {Pos: 1, Ord: 1}}, false},
		{"ordinal-down", []key{{Pos: 1, Ord: 2}, {Pos: 1, Ord: 1}}, false},
		// The positions are sent as deltas: one that wraps around is a
		// smaller position.
		{"position-wraps", []key{{Pos: 5, Ord: 0}, {Pos: 2, Ord: 0}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &summary{keys: tt.keys, deadlock: -1}
			_, err := decodeSummary(s.encode(nil))
			if (err == nil) != tt.ok {
				t.Errorf("decodeSummary: error %v, want ok %t", err, tt.ok)
			}
		})
	}
}

// TestPositions: the positions of a worker's keys are their ranks among
// every worker's keys, as a sort of them all gives.
func TestPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + rng.IntN(5)
		seen := map[key]bool{}
		var all []key
		sums := make([]*summary, n)
		for j := range sums {
			sums[j] = &summary{}
			for range rng.IntN(20) {
				k := key{Pos: rng.Uint64N(8), Ord: rng.Uint64N(4)}
				if !seen[k] {
					seen[k] = true
					sums[j].keys = append(sums[j].keys, k)
					all = append(all, k)
				}
			}
			slices.SortFunc(sums[j].keys, key.Compare)
		}
		slices.SortFunc(all, key.Compare)
		for idx := range sums {
			var want []uint64
			for _, k := range sums[idx].keys {
				p, _ := slices.BinarySearchFunc(all, k, key.Compare)
				want = append(want, uint64(p))
			}
			got := positions(sums, idx, []uint64{99})
			if diff := cmp.Diff(append([]uint64{99}, want...), got); diff != "" {
				t.Fatalf("round %d, worker %d of %d (-want +got):\n%s", round, idx, n, diff)
			}
		}
	}
}

// TestStoreStateBits: a batch or states file with a good checksum whose
// state sets bits that no slot of the model takes is refused, not stored.
func TestStoreStateBits(t *testing.T) {
	ctx := context.Background()
	m, e := toctouEngine(t)
	if e.words != 1 || e.valid[0] == ^uint64(0) {
		t.Fatalf("toctou: a state of %d words takes every bit; the test needs a spare bit", e.words)
	}
	st := leased(t, NewMemBucket(), Manifest{Spec: "x", Workers: 1})
	w := &worker{ctx: ctx, st: st, n: 1, e: e, visited: machine.NewStore(e.words), bads: map[uint32]bad{},
		witnessed: make([]bool, len(m.Invariants))}
	var bw writer
	bw.word(^uint64(0))
	bw.key(key{Pos: 0, Ord: 1})
	bw.u(0)
	var ce *CorruptError
	if _, err := w.merge(bw.b, w.name(KindBatch, 0, 0, 0)); !errors.As(err, &ce) {
		t.Errorf("merge: %v, want a CorruptError", err)
	}
	var sw writer
	sw.u(1)
	sw.word(^uint64(0))
	sw.key(key{Pos: 0, Ord: 1})
	if _, err := st.Put(ctx, w.name(KindStates, 1, 0, 0), 1, sw.b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.readStates(1, 0, 1); !errors.As(err, &ce) {
		t.Errorf("readStates: %v, want a CorruptError", err)
	}
}

// TestSentCache: a successor owned by another worker goes to its outbox
// once in phase A (a repeat, of this level or an earlier one, is left
// out), but every time when its parent asks (each asking record needs
// its answer) and in phase B (whose keys may be smaller than phase A's);
// a vector whose first word is all ones is never entered. Wide vectors
// get fewer slots, the cache staying within sentBytes.
func TestSentCache(t *testing.T) {
	_, e := toctouEngine(t)
	w := &worker{e: e, n: 2, idx: 0}
	nw := e.words
	// A vector owned by worker 1, and its hash.
	vec := make([]uint64, nw)
	var h uint64
	for x := uint64(1); ; x++ {
		vec[0] = x
		if h = machine.Hash(vec); w.owner(h, vec) == 1 {
			break
		}
	}
	send := func(once, ask bool, v []uint64) int {
		out := make([]outbox, 2)
		w.x = expansion{out: out, once: once, ask: ask}
		w.successors(v, []machine.Succ{{H: machine.Hash(v), Key: 1}})
		return out[1-w.idx].count
	}
	for i, tt := range []struct {
		once, ask bool
		want      int
	}{
		{true, false, 1},  // phase A, first: sent
		{true, false, 0},  // phase A, a repeat: left out
		{true, true, 1},   // an asking parent: sent
		{false, false, 1}, // phase B: sent
		{true, false, 0},  // phase A, a later level: left out
	} {
		if got := send(tt.once, tt.ask, vec); got != tt.want {
			t.Errorf("send %d (once %v, ask %v): %d records, want %d", i, tt.once, tt.ask, got, tt.want)
		}
	}
	// All ones in the first word: never entered, always sent.
	ones := slices.Clone(vec)
	ones[0] = ^uint64(0)
	w.idx = 1 - w.owner(machine.Hash(ones), ones) // the other worker sends it
	for i := range 2 {
		if got := send(true, false, ones); got != 1 {
			t.Errorf("all-ones send %d: %d records, want 1", i, got)
		}
	}
	if got := len(w.sent) / nw; got != sentSlots {
		t.Errorf("%d slots for %d-word vectors, want %d", got, nw, sentSlots)
	}
	wide := &worker{}
	wide.sentBefore(make([]uint64, 100), 0)
	if got := len(wide.sent) * 8; got > sentBytes || got < sentBytes/2 {
		t.Errorf("the cache of 100-word vectors takes %d bytes, want within (%d/2, %d]", got, sentBytes, sentBytes)
	}
}

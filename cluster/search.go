package cluster

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Config names one worker's part in a run.
type Config struct {
	Store   *Store
	Index   int // this worker, 0 <= Index < Workers
	Workers int // N, as in the store's manifest
	// Search numbers the searches of one check (the safety search, then,
	// under partial-order reduction, the unreduced search for the shortest
	// trace): each has its own files.
	Search int
	// Partition is the owner function (nil: the whole state's hash);
	// every worker of a run must use the same, which the store's
	// manifest records.
	Partition *Partition
}

// Supported reports, as an error naming the option, whether the
// partitioned search can run with opts: it does not take Continue,
// HashCompact or a memory budget.
func Supported(opts checker.Options) error {
	switch {
	case opts.Continue:
		return errors.New("--continue is not supported by the distributed search")
	case opts.HashCompact:
		return errors.New("--hash-compact is not supported by the distributed search (each worker keeps its shards' states)")
	case opts.MemoryBudget > 0:
		return errors.New("--memory is not supported by the distributed search")
	}
	return nil
}

// Search runs worker cfg.Index's part of the breadth-first search of prog
// with opts and returns its result, which every worker computes alike
// from the committed files: the same states, transitions, violation and
// trace as checker.RunProgram. A worker resumes from the last level all
// workers committed. The search waits for the other workers' files; ctx
// ends the wait (the result is then Unknown, "interrupted" or "timeout").
func Search(ctx context.Context, cfg Config, prog *machine.Program, opts checker.Options) (*verdict.Result, error) {
	if err := Supported(opts); err != nil {
		return nil, err
	}
	if cfg.Workers < 1 || cfg.Index < 0 || cfg.Index >= cfg.Workers {
		return nil, fmt.Errorf("worker index %d out of range for %d workers", cfg.Index, cfg.Workers)
	}
	if p := cfg.Partition; p != nil && len(p.words) > 0 && p.words[len(p.words)-1] >= prog.Words() {
		return nil, fmt.Errorf("partition %s is not of this model's state (%d words)", p, prog.Words())
	}
	e, err := newEngine(prog, opts)
	if err != nil {
		return nil, err
	}
	w := &worker{ctx: ctx, cfg: cfg, st: cfg.Store, idx: cfg.Index, n: cfg.Workers, e: e, opts: opts,
		visited: newVisited(prog, cfg.Workers, opts), start: time.Now(),
		witnessed: make([]bool, len(prog.Model.Invariants))}
	w.unwit = slices.Clone(e.ante)
	e.succ = w.successors
	e.keepCol = w.n == 1
	res, err := w.run()
	if err != nil {
		var ce *CorruptError
		if ctx.Err() != nil && !errors.As(err, &ce) {
			// A wait or a write that ctx ended: the levels committed stand.
			return w.stopped(ctx), nil
		}
		return nil, err
	}
	return res, nil
}

// newVisited returns the visited set of a worker of n. One worker
// without ample sets stores the level's successors in key order (its
// frontier's positions, then ordinals), so the first key a state gets is
// its smallest, and no parent asks whether a duplicate was stored before
// the level: like the local search's one worker, its set keeps no index
// of a duplicate where a state fits a slot (machine.NewKeyStoreFor).
func newVisited(prog *machine.Program, n int, opts checker.Options) *machine.Store {
	if n == 1 && opts.Ample == nil {
		return machine.NewKeyStoreFor(prog)
	}
	return machine.NewStore(prog.Words())
}

type worker struct {
	ctx     context.Context
	cfg     Config
	st      *Store
	idx, n  int
	e       *engine
	opts    checker.Options
	visited *machine.Store
	start   time.Time

	inits    [][]uint64 // every initial state, in order
	initOrds []int
	initFail *failure

	level int      // the committed level
	front []uint32 // this worker's states of the level, in key order
	fpos  []uint64 // their positions in the level
	sums  []*summary

	// this worker's figures so far (cumulative; the successors and
	// their actions are e.trans and e.fired)
	states    int64
	witnessed []bool
	unwit     []int // the invariants with an antecedent not witnessed yet

	// during a merge: the keys of the states stored since levelStart
	levelStart uint32
	keys       []key
	lowered    []uint32 // indexes into keys that keep lowered (with repeats)
	bads       map[uint32]bad
	own        *summary // this worker's summary of the level it wrote, for the commit
	x          expansion
	pend       []pending      // successors waiting in flush
	pendS      []machine.Succ // their hashes and ordinals
	pendVec    []uint64       // their vectors
	runs       []heldRun      // one worker's: its successors' parents (flushHeld)
	sent       []uint64       // the sent cache (keep.go), sentMask+1 vectors
	sentMask   uint64
	sink       uint64   // flush's loads, kept
	ps         []pstate // expandLevel's notes, reused from level to level

	// finishLevel's buffers, reused from level to level: the key order,
	// the states and summary frames, and the keys of this worker's
	// summary of the level before the committed one (which no one reads
	// once the next level is committed)
	order     []int
	sortBuf   orderBuf
	frame     []byte
	sumFrame  []byte
	spareKeys []key

	// the last committed global figures, for a stopped search
	lastStats verdict.Stats
	lastCov   verdict.Coverage
	written   atomic.Int64 // bytes written
}

// owner returns the worker that owns the packed state vec of hash h
// ([machine.Hash]) under the run's [Partition].
func (w *worker) owner(h uint64, vec []uint64) int {
	if w.cfg.Partition == nil {
		// The whole state: its shard (of 4096, by the high bits of the
		// hash) modulo N; inlined, as it was before partitions.
		return int(h>>52) % w.n
	}
	return w.cfg.Partition.owner(vec, w.n)
}

func (w *worker) run() (*verdict.Result, error) {
	var err error
	w.inits, w.initOrds, w.initFail, err = w.e.initStates()
	if err != nil {
		return nil, err
	}
	last, err := w.lastCommitted()
	if err != nil {
		return nil, err
	}
	if err := w.restore(last); err != nil {
		return nil, err
	}
	for {
		if res, done, err := w.decide(); done || err != nil {
			return res, err
		}
		if err := w.expandLevel(); err != nil {
			return nil, err
		}
		if err := w.commit(w.level + 1); err != nil {
			return nil, err
		}
	}
}

func (w *worker) name(k Kind, level, src, dst int) Name {
	return Name{Kind: k, Search: w.cfg.Search, Level: level, Src: src, Dst: dst}
}

// lastCommitted returns the deepest level whose summaries all exist.
func (w *worker) lastCommitted() (int, error) {
	level := 0
	for {
		for j := range w.n {
			ok, err := w.st.Exists(w.ctx, w.name(KindSummary, level+1, j, j))
			if err != nil {
				return 0, err
			}
			if !ok {
				return level, nil
			}
		}
		level++
	}
}

// restore loads committed level L: the initial states this worker owns,
// its states of levels 1..L, the summaries of L and the positions of its
// frontier.
func (w *worker) restore(level int) error {
	w.level = 0
	w.front, w.fpos = w.front[:0], w.fpos[:0]
	for p, s := range w.inits {
		if w.owner(machine.Hash(s), s) != w.idx {
			continue
		}
		idx, _, err := w.visited.Insert(s, 0)
		if err != nil {
			return err
		}
		w.front = append(w.front, idx)
		w.fpos = append(w.fpos, uint64(p))
	}
	// Witnessed antecedents of the initial states: every worker checks
	// them all (they are few), the figures being an OR.
	for _, s := range w.inits {
		w.e.check(s, w.witnessed, &w.unwit)
	}
	if level == 0 {
		return nil
	}
	// The summaries first: this worker's bounds its states files.
	sums, err := w.readSummaries(level, nil)
	if err != nil {
		return err
	}
	me := sums[w.idx]
	left := uint64(max(me.states, 0)) // states owned, levels 1..level
	for l := 1; l <= level; l++ {
		if l == level {
			left = uint64(len(me.keys))
		}
		vecs, _, err := w.readStates(l, w.idx, left)
		if err != nil {
			return err
		}
		left -= min(left, uint64(len(vecs)))
		w.front = w.front[:0]
		for _, v := range vecs {
			idx, isNew, err := w.visited.Insert(v, 0)
			if err != nil {
				return err
			}
			if !isNew {
				return &CorruptError{Path: w.name(KindStates, l, w.idx, w.idx).Key(), Msg: "holds a state stored before"}
			}
			w.front = append(w.front, idx)
		}
	}
	w.states, w.e.trans = me.states, me.trans
	copy(w.e.fired, me.fired)
	for i, x := range me.witnessed {
		w.witnessed[i] = w.witnessed[i] || x
	}
	w.unwit = slices.DeleteFunc(w.unwit, func(i int) bool { return w.witnessed[i] })
	w.level, w.sums = level, sums
	w.fpos = positions(sums, w.idx, w.fpos[:0])
	if len(w.fpos) != len(w.front) {
		return &CorruptError{Path: w.name(KindStates, level, w.idx, w.idx).Key(), Msg: "states and summary disagree"}
	}
	return nil
}

// positions appends to dst the positions in the level of worker idx's
// new states: their ranks among all workers' keys. Each summary's keys
// ascend (decodeSummary checks it), so a key's rank is its own rank plus
// the number of each other worker's keys below it: one pass over each.
func positions(sums []*summary, idx int, dst []uint64) []uint64 {
	mine := sums[idx].keys
	at := len(dst)
	for r := range mine {
		dst = append(dst, uint64(r))
	}
	pos := dst[at:]
	for j, s := range sums {
		if j == idx {
			continue
		}
		below := 0
		for r, k := range mine {
			for below < len(s.keys) && s.keys[below].Less(k) {
				below++
			}
			pos[r] += uint64(below)
		}
	}
	return dst
}

// readSummaries reads every worker's summary of level; own, when not
// nil, is this worker's, as it wrote it.
func (w *worker) readSummaries(level int, own *summary) ([]*summary, error) {
	sums := make([]*summary, w.n)
	err := ioEach(w.n, func(j int) error {
		if j == w.idx && own != nil {
			sums[j] = own
			return nil
		}
		n := w.name(KindSummary, level, j, j)
		_, p, err := w.st.Wait(w.ctx, n, w.bound(KindSummary, NoBound))
		if err != nil {
			return err
		}
		s, err := decodeSummary(p)
		if err != nil || !w.plausible(s) {
			return &CorruptError{Path: n.Key(), Msg: "summary payload does not decode"}
		}
		sums[j] = s
		return nil
	})
	return sums, err
}

// plausible reports whether the indexes a summary holds are in range for
// the model (a frame with a good checksum can still be made by hand).
func (w *worker) plausible(s *summary) bool {
	m := w.e.prog.Model
	okEx := func(ex *machine.ExecError) bool { return ex == nil || ex.Action >= -1 && ex.Action < len(m.Actions) }
	switch {
	case len(s.fired) != len(w.e.fired) || len(s.witnessed) != len(w.witnessed):
		return false
	case s.fail != nil && !okEx(s.fail.ex):
		return false
	case s.bad != nil && (s.bad.local < 0 || s.bad.local >= len(s.keys) || s.bad.b.inv < 0 || s.bad.b.inv >= len(m.Invariants) || !okEx(s.bad.b.ex)):
		return false
	}
	return true
}

// ioConcurrency bounds the store requests one worker has in flight. The
// requests of one kind of a level (a batch or a summary for each other
// worker) go out in ⌈(N−1)/ioConcurrency⌉ rounds, one after the other,
// and a level takes three such sets (writes of the batches, their reads,
// the reads of the summaries) besides its states and summary: 16 made 14
// round trips a level on 64 workers, 64 makes 5 (bench/cluster.sh,
// docs/distributed.md, "A model of N machines").
const ioConcurrency = 64

// ioEach calls f(0..n-1) from up to ioConcurrency goroutines and returns
// the error of the smallest j that failed.
func ioEach(n int, f func(j int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, ioConcurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1) - 1)
				if j >= n {
					return
				}
				errs[j] = f(j)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// bound returns the Bound of a frame of kind k that this worker reads,
// of at most records records (NoBound: as its header says): what the
// writer's encoding of the model's states can take.
func (w *worker) bound(k Kind, records uint64) Bound {
	const uv = binary.MaxVarintLen64
	rec := uint64(w.e.words*8 + 2*uv) // a vector and its key
	switch k {
	case KindStates:
		return Bound{Records: records, Record: rec, Fixed: uv}
	case KindBatch, KindRest:
		return Bound{Records: records, Record: rec + 1} // and the asking flag
	case KindReply:
		return Bound{Records: records, Record: 1}
	}
	// A summary: keys, its figures per action and invariant, and two
	// runtime errors with their file names and messages.
	return Bound{Records: records, Record: 2 * uv, Fixed: 4<<20 + uint64(uv*len(w.e.fired)+len(w.witnessed))}
}

// readStates reads worker j's new states of a level, in key order: at
// most records of them.
func (w *worker) readStates(level, j int, records uint64) ([][]uint64, []key, error) {
	n := w.name(KindStates, level, j, j)
	_, p, err := w.st.Get(w.ctx, n, w.bound(KindStates, records))
	if err != nil {
		return nil, nil, err
	}
	r := &reader{b: p}
	cnt := r.count(w.e.words * 8)
	vecs := make([][]uint64, 0, cnt)
	keys := make([]key, 0, cnt)
	for range cnt {
		v := make([]uint64, w.e.words)
		for i := range v {
			v[i] = r.word()
		}
		if r.err == nil && !w.e.isValid(v) {
			return nil, nil, &CorruptError{Path: n.Key(), Msg: "holds a state with bits outside the model's slots"}
		}
		vecs = append(vecs, v)
		keys = append(keys, r.key())
	}
	if r.done() != nil {
		return nil, nil, &CorruptError{Path: n.Key(), Msg: "states payload does not decode"}
	}
	return vecs, keys, nil
}

// put writes a frame and counts its bytes.
func (w *worker) put(n Name, count int, payload []byte) error {
	_, err := w.create(n, count, payload)
	return err
}

// create is put, and reports whether this write created the file.
func (w *worker) create(n Name, count int, payload []byte) (bool, error) {
	b, created, err := w.st.create(w.ctx, n, uint64(count), payload)
	w.written.Add(int64(b))
	return created, err
}

// createFrame is create of a frame made by newFrame ([Store.createFrame]).
func (w *worker) createFrame(n Name, count int, frame []byte) (bool, error) {
	b, created, err := w.st.createFrame(w.ctx, n, uint64(count), frame)
	w.written.Add(int64(b))
	return created, err
}

// A record is a successor on its way to its owner: the vector, its key,
// and whether the expanding worker asks if it was stored before the
// level (the cycle proviso of partial-order reduction).
type outbox struct {
	w     writer
	count int
	asks  []int // per asking record, in order: the frontier index of its parent
}

func (o *outbox) add(vec []uint64, k key, ask bool, parent int) {
	for _, x := range vec {
		o.w.word(x)
	}
	o.w.key(k)
	if ask {
		o.w.u(1)
		o.asks = append(o.asks, parent)
	} else {
		o.w.u(0)
	}
	o.count++
}

// pstate is what expansion remembers of a frontier state between the
// two phases.
type pstate struct {
	taken int  // ordinals taken so far
	ask   bool // a proper ample subset: the rest may follow
	old   bool // a successor of the ample set was stored before the level
	// (no pointer: the collector does not scan a level's pstates; the
	// failures, which are rare, are in a map beside them)
}

// room returns s resliced to length n, or, when it has too little room,
// a new slice (s's contents dropped) with half again as much: a level's
// buffers grow in few steps and are not copied.
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/2)
	}
	return s[:n]
}

// expandLevel expands this worker's part of the committed level, sends
// the successors to their owners, merges the successors it owns, and
// writes its states and summary of the next level.
func (w *worker) expandLevel() error {
	L := w.level
	w.levelStart = uint32(w.visited.Len())
	w.keys = w.keys[:0]
	w.lowered = w.lowered[:0]
	w.bads = map[uint32]bad{}
	por := w.opts.Ample != nil
	ps := room(w.ps, len(w.front))
	clear(ps)
	w.ps = ps
	// fails: per frontier index k at position P, its expansion's first
	// failure (rare: a map, not a pointer in every pstate)
	var fails map[int]*failure
	failed := func(k int, P uint64, f *failure) {
		if f == nil {
			return
		}
		if _, ok := fails[k]; ok {
			return
		}
		f.k.Pos = P
		if fails == nil {
			fails = map[int]*failure{}
		}
		fails[k] = f
	}
	sum := &summary{deadlock: -1}

	// Phase A: every action, or the ample sets. The successors this
	// worker owns are stored in batches (flush); the others go to their
	// owners' outboxes.
	out := make([]outbox, w.n)
	w.x.out = out // once a phase, not a pointer written per state
	for k, idx := range w.front {
		P := w.fpos[k]
		w.e.load(w.visited.Vector(idx))
		enabled, sub := w.e.enabled()
		ps[k].ask = por && len(sub) < len(enabled)
		w.x.parent, w.x.pos, w.x.ask, w.x.once = k, P, ps[k].ask, true
		taken, fail := w.e.run(sub, 0)
		ps[k].taken = taken
		failed(k, P, fail)
		if err := w.expanded(ps); err != nil {
			return err
		}
	}
	if err := w.flush(ps); err != nil {
		return err
	}
	replies, err := w.exchange(KindBatch, L, out, por)
	if err != nil {
		return err
	}
	if por {
		// Phase B: the rest of the enabled actions of the states whose
		// ample set made no successor or reached an older state.
		for j := range w.n {
			bits := replies[j]
			if len(bits) != len(out[j].asks) {
				return &CorruptError{Path: w.name(KindReply, L, j, w.idx).Key(), Msg: "reply does not match the batch"}
			}
			for i, parent := range out[j].asks {
				if bits[i] {
					ps[parent].old = true
				}
			}
		}
		outB := make([]outbox, w.n)
		w.x.out = outB
		for k, idx := range w.front {
			if !ps[k].ask || ps[k].taken > 0 && !ps[k].old {
				continue
			}
			P := w.fpos[k]
			w.e.load(w.visited.Vector(idx))
			enabled, sub := w.e.enabled()
			rest := w.e.restOf(enabled, sub)
			w.x.parent, w.x.pos, w.x.ask, w.x.once = k, P, false, false
			taken, fail := w.e.run(rest, ps[k].taken)
			ps[k].taken += taken
			failed(k, P, fail)
			if err := w.expanded(ps); err != nil {
				return err
			}
		}
		if err := w.flush(ps); err != nil {
			return err
		}
		if _, err := w.exchange(KindRest, L, outB, false); err != nil {
			return err
		}
	}
	for k, idx := range w.front {
		if fails != nil && sum.fail == nil {
			if f, ok := fails[k]; ok {
				sum.fail = f // positions ascend: the first is the smallest key
			}
		}
		if ps[k].taken == 0 && !w.opts.NoDeadlock && sum.deadlock < 0 {
			if w.e.load(w.visited.Vector(idx)); !w.e.terminal() {
				sum.deadlock = int64(w.fpos[k])
			}
		}
	}
	return w.finishLevel(L+1, sum)
}

// exchange sends the outboxes of one phase (self-addressed ones stay in
// memory), then merges the records addressed to this worker. With ask,
// it answers the asking records: replies[j] are the answers to the
// records this worker sent to j.
func (w *worker) exchange(kind Kind, L int, out []outbox, ask bool) ([][]bool, error) {
	batchName := func(src, dst int) Name { return w.name(kind, L, src, dst) }
	err := ioEach(w.n, func(j int) error {
		if j == w.idx {
			return nil
		}
		return w.put(batchName(w.idx, j), out[j].count, out[j].w.b)
	})
	if err != nil {
		return nil, err
	}
	// Read the incoming batches concurrently, merge them in source order.
	payloads := make([][]byte, w.n)
	err = ioEach(w.n, func(j int) error {
		if j == w.idx {
			payloads[j] = out[j].w.b
			return nil
		}
		var err error
		_, payloads[j], err = w.st.Wait(w.ctx, batchName(j, w.idx), w.bound(kind, NoBound))
		return err
	})
	if err != nil {
		return nil, err
	}
	answers := make([][]bool, w.n) // per source: the answers to its asks
	for j := range w.n {
		ans, err := w.merge(payloads[j], batchName(j, w.idx))
		payloads[j] = nil
		if err != nil {
			return nil, err
		}
		answers[j] = ans
	}
	if !ask {
		return nil, nil
	}
	err = ioEach(w.n, func(j int) error {
		if j == w.idx {
			return nil
		}
		var bw writer
		for _, a := range answers[j] {
			if a {
				bw.u(1)
			} else {
				bw.u(0)
			}
		}
		return w.put(w.name(KindReply, L, w.idx, j), len(answers[j]), bw.b)
	})
	if err != nil {
		return nil, err
	}
	replies := make([][]bool, w.n)
	err = ioEach(w.n, func(j int) error {
		if j == w.idx {
			replies[j] = answers[j]
			return nil
		}
		n := w.name(KindReply, L, j, w.idx)
		_, p, err := w.st.Wait(w.ctx, n, w.bound(KindReply, uint64(len(out[j].asks))))
		if err != nil {
			return err
		}
		r := &reader{b: p}
		for len(r.b) > 0 && r.err == nil {
			replies[j] = append(replies[j], r.u() != 0)
		}
		if r.done() != nil {
			return &CorruptError{Path: n.Key(), Msg: "reply payload does not decode"}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return replies, nil
}

// merge stores the successors of one batch (keep): it returns, per
// asking record, whether its state was stored before the level. It
// decodes and checks [machine.TouchBatch] records, loads their table slots
// ([machine.Store.TouchSuccs]), then stores them.
func (w *worker) merge(p []byte, n Name) ([]bool, error) {
	r := &reader{b: p}
	nw := w.e.words
	vecs := make([]uint64, machine.TouchBatch*nw)
	var hs [machine.TouchBatch]machine.Succ
	var keys [machine.TouchBatch]key
	var asking [machine.TouchBatch]bool
	var ans []bool
	for len(r.b) > 0 && r.err == nil {
		m := 0
		for ; m < machine.TouchBatch && len(r.b) > 0; m++ {
			vec := vecs[m*nw : (m+1)*nw]
			for i := range vec {
				vec[i] = r.word()
			}
			keys[m] = r.key()
			asking[m] = r.u() != 0
			if r.err != nil {
				break
			}
			if !w.e.isValid(vec) {
				return nil, &CorruptError{Path: n.Key(), Msg: "holds a state with bits outside the model's slots"}
			}
			hs[m].H = machine.Hash(vec)
			if w.owner(hs[m].H, vec) != w.idx {
				return nil, &CorruptError{Path: n.Key(), Msg: "holds a state another worker owns"}
			}
		}
		if r.err != nil {
			break
		}
		w.sink += w.visited.TouchSuccs(hs[:m], vecs[:m*nw], nw)
		for i := range m {
			old, err := w.keep(vecs[i*nw:(i+1)*nw], hs[i].H, keys[i], nil)
			if err != nil {
				return nil, err
			}
			if asking[i] {
				ans = append(ans, old)
			}
		}
	}
	if r.done() != nil {
		return nil, &CorruptError{Path: n.Key(), Msg: "batch payload does not decode"}
	}
	return ans, nil
}

// finishLevel writes this worker's states and summary of level L.
func (w *worker) finishLevel(L int, sum *summary) error {
	nn := len(w.keys)
	order := w.sortBuf.keyOrder(w.keys, w.lowered, w.order)
	w.order = order
	// Room for the vectors and keys of a level of fewer than 2^21
	// positions and 128 ordinals a state, and the frame's header and
	// CRC: one allocation, not a doubling series of copies, with half
	// again for the levels after, which write in the same frame.
	if size := binary.MaxVarintLen64 + nn*(w.e.words*8+4); cap(w.frame) < headerSize+size+crcSize {
		w.frame = newFrame(size + size/2)
	}
	sw := writer{b: w.frame[:headerSize]}
	sw.u(uint64(nn))
	sum.keys = room(w.spareKeys, nn)
	w.spareKeys = nil
	for r, i := range order {
		idx := w.levelStart + uint32(i)
		for _, x := range w.visited.Vector(idx) {
			sw.word(x)
		}
		sw.key(w.keys[i])
		sum.keys[r] = w.keys[i]
		if len(w.bads) == 0 {
			continue
		}
		if b, ok := w.bads[idx]; ok && (sum.bad == nil || w.keys[i].Less(sum.bad.k)) {
			sum.bad = &badState{k: w.keys[i], local: r, b: b}
		}
	}
	w.states += int64(nn)
	sum.states, sum.trans = w.states, w.e.trans
	sum.fired = slices.Clone(w.e.fired)
	sum.witnessed = slices.Clone(w.witnessed)
	if _, err := w.createFrame(w.name(KindStates, L, w.idx, w.idx), nn, sw.b); err != nil {
		return err
	}
	w.frame = sw.b[:0]
	if cap(w.sumFrame) == 0 {
		w.sumFrame = newFrame(4 * nn)
	}
	w.sumFrame = sum.encode(w.sumFrame[:headerSize])
	created, err := w.createFrame(w.name(KindSummary, L, w.idx, w.idx), nn, w.sumFrame)
	if err != nil {
		return err
	}
	// The commit takes this summary as written, not read back, unless
	// the file was there already (its bytes are what the others read).
	w.own = nil
	if created {
		w.own = sum
	}
	// The next frontier: the new states in key order (positions follow at
	// the commit).
	w.front = room(w.front, len(order))
	for r, i := range order {
		w.front[r] = w.levelStart + uint32(i)
	}
	return nil
}

// keyOrder returns the indexes of keys in the order of the keys, in dst's
// room if it has enough (ties, which a level's keys do not have, in the
// order of the indexes). One worker stores its states in key order; with
// more, the states that crossed from other workers come after its own,
// one run for each source in the order of its keys, and a key that a
// later source lowered (lowered: those indexes, with repeats) breaks its
// run. So the keys are compared as words ([verdict.Key.Word], every key
// of a level of fewer than 2^40 states fits one), the lowered ones are
// taken apart in the order of their last lowering (each source lowers
// in the order of its keys), both sequences are split where a key is
// smaller than the one before it (ascending runs, whatever their
// source), and the runs merged in pairs: linear work for each doubling
// of the runs, where a sort of the whole level took a tenth of two
// workers' CPU on pipeline K=3 N=2 before it sorted words and 6.7%
// after. lowered is a hint: the order is that of the keys whatever it
// holds.
func (b *orderBuf) keyOrder(keys []key, lowered []uint32, dst []int) []int {
	n := len(keys)
	order := room(dst, n)
	sorted := true
	for i := 1; i < n && sorted; i++ {
		a, b := keys[i-1], keys[i]
		sorted = a.Pos < b.Pos || a.Pos == b.Pos && a.Ord <= b.Ord
	}
	if sorted {
		for i := range order {
			order[i] = i
		}
		return order
	}
	words := room(b.words, n)
	b.words = words
	for i, k := range keys {
		if k.Pos >= 1<<(64-verdict.OrdinalBits) || k.Ord > verdict.MaxOrdinal {
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int {
				if c := keys[a].Compare(keys[b]); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			return order
		}
		words[i] = k.Word()
	}
	low := room(b.low, n)
	b.low = low
	clear(low)
	// The runs of the keys not lowered, one after the other in order,
	// then the lowered ones in the order of their last lowering (each
	// source lowers in the order of its keys); bounds[r] is where run r
	// starts, a new one wherever a key is smaller than the one before.
	at := n
	for k := len(lowered) - 1; k >= 0; k-- {
		if i := lowered[k]; int(i) < n && !low[i] {
			low[i] = true
			at--
			order[at] = int(i)
		}
	}
	nl := n - at
	bounds := b.bounds[:0]
	at = 0
	for i := range n {
		if low[i] {
			continue
		}
		if at == 0 || before(words, i, order[at-1]) {
			bounds = append(bounds, at)
		}
		order[at] = i
		at++
	}
	for ; at < n; at++ {
		if at == n-nl || before(words, order[at], order[at-1]) {
			bounds = append(bounds, at)
		}
	}
	b.bounds = bounds
	// Merge runs in pairs until one is left, between order and tmp.
	tmp := room(b.tmp, n)
	b.tmp = tmp
	src, dst2 := order, tmp
	for len(bounds) > 1 {
		next := bounds[:0]
		for r := 0; r < len(bounds); r += 2 {
			lo := bounds[r]
			next = append(next, lo)
			if r+1 == len(bounds) {
				copy(dst2[lo:], src[lo:])
				break
			}
			mid := bounds[r+1]
			hi := n
			if r+2 < len(bounds) {
				hi = bounds[r+2]
			}
			mergeRuns(dst2[lo:hi], src[lo:mid], src[mid:hi], words)
		}
		bounds = next
		src, dst2 = dst2, src
	}
	if &src[0] != &order[0] {
		copy(order, src)
	}
	return order
}

// before reports whether index a comes before index b in the order of
// their words, the index breaking ties.
func before(words []uint64, a, b int) bool {
	return words[a] < words[b] || words[a] == words[b] && a < b
}

// mergeRuns merges the ascending runs a and b (by before) into dst.
func mergeRuns(dst, a, b []int, words []uint64) {
	k := 0
	for len(a) > 0 && len(b) > 0 {
		if before(words, b[0], a[0]) {
			dst[k] = b[0]
			b = b[1:]
		} else {
			dst[k] = a[0]
			a = a[1:]
		}
		k++
	}
	k += copy(dst[k:], a)
	copy(dst[k:], b)
}

// orderBuf is keyOrder's room, kept from level to level: the keys as
// words, the lowered marks, the runs' bounds and the merge's second
// array.
type orderBuf struct {
	words  []uint64
	low    []bool
	bounds []int
	tmp    []int
}

// commit waits for every worker's summary of level L and takes L as the
// committed level.
func (w *worker) commit(L int) error {
	sums, err := w.readSummaries(L, w.own)
	w.own = nil
	if err != nil {
		return err
	}
	if len(w.sums) > w.idx {
		w.spareKeys = w.sums[w.idx].keys[:0] // the level before's: unread from now on
	}
	w.level, w.sums = L, sums
	w.fpos = positions(sums, w.idx, w.fpos[:0])
	return nil
}

// Runner returns a function for verify.Options.Search that runs every
// search it is given as worker index of workers on st (whose lease the
// caller took), numbering the searches 0, 1, ... in call order: every
// worker of a run makes the same calls, in the same order. part is the
// run's owner function (nil: the whole state).
func Runner(st *Store, index, workers int, part *Partition) func(context.Context, *machine.Program, checker.Options) (*verdict.Result, error) {
	next := 0
	return func(ctx context.Context, prog *machine.Program, opts checker.Options) (*verdict.Result, error) {
		cfg := Config{Store: st, Index: index, Workers: workers, Search: next, Partition: part}
		next++
		return Search(ctx, cfg, prog, opts)
	}
}

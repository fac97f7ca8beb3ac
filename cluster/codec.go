package cluster

import (
	"encoding/binary"
	"errors"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// writer appends the fields of a payload: unsigned and signed varints,
// fixed words and strings.
type writer struct{ b []byte }

func (w *writer) u(x uint64)    { w.b = binary.AppendUvarint(w.b, x) }
func (w *writer) i(x int64)     { w.b = binary.AppendVarint(w.b, x) }
func (w *writer) word(x uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, x) }
func (w *writer) str(s string) {
	w.u(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) key(k key) {
	w.u(k.Pos)
	w.u(k.Ord)
}

func (w *writer) execError(ex *machine.ExecError) {
	w.u(uint64(ex.Kind))
	w.str(ex.Pos.Filename)
	w.i(int64(ex.Pos.Offset))
	w.i(int64(ex.Pos.Line))
	w.i(int64(ex.Pos.Col))
	w.str(ex.Msg)
	w.i(int64(ex.Action))
}

// errPayload is the error of a payload that does not decode: the store
// turns it into a CorruptError naming the file.
var errPayload = errors.New("payload does not decode")

// reader reads what writer wrote; the first malformed field sets err and
// every later read returns zero.
type reader struct {
	b   []byte
	err error
}

func (r *reader) u() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errPayload
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *reader) i() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errPayload
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *reader) word() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errPayload
		return 0
	}
	x := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return x
}

func (r *reader) str() string {
	n := r.u()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errPayload
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads a count of items of at least size bytes each: a count
// that the rest of the payload cannot hold is malformed (so that a
// corrupt count cannot make a reader allocate without bound).
func (r *reader) count(size int) int {
	n := r.u()
	if r.err != nil || n > uint64(len(r.b)/max(size, 1)) {
		r.err = errPayload
		return 0
	}
	return int(n)
}

func (r *reader) key() key { return key{Pos: r.u(), Ord: r.u()} }

func (r *reader) execError() *machine.ExecError {
	ex := &machine.ExecError{Kind: machine.Kind(r.u())}
	ex.Pos = spec.Position{Filename: r.str(), Offset: int(r.i()), Line: int(r.i()), Col: int(r.i())}
	ex.Msg = r.str()
	ex.Action = int(r.i())
	return ex
}

// done reports the reader's error, or a payload longer than its fields.
func (r *reader) done() error {
	if r.err == nil && len(r.b) > 0 {
		r.err = errPayload
	}
	return r.err
}

// summary is a worker's summary of a level L >= 1: the keys of the new
// states it owns (ascending), its figures so far (cumulative, so that a
// resumed worker needs the last summary only), and the violation
// candidates met while expanding level L-1 (its frontier part) and
// storing level L (its states).
type summary struct {
	keys      []key
	states    int64   // states owned, levels 1..L
	trans     int64   // successors generated expanding levels 0..L-1
	fired     []int64 // per action
	witnessed []bool  // per invariant: an antecedent held in a state owned
	deadlock  int64   // smallest position (level L-1) of a deadlock; -1: none
	fail      *failure
	bad       *badState
}

// badState is the violation candidate of a new state: its key, its index
// among the worker's new states of the level (key order) and the
// violated invariant.
type badState struct {
	k     key
	local int
	b     bad
}

// encode appends the summary's payload to dst.
func (s *summary) encode(dst []byte) []byte {
	w := writer{b: dst}
	w.u(uint64(len(s.keys)))
	var prev key
	for _, k := range s.keys {
		// Keys ascend: parent positions as deltas.
		w.u(k.Pos - prev.Pos)
		w.u(k.Ord)
		prev = k
	}
	w.i(s.states)
	w.i(s.trans)
	w.u(uint64(len(s.fired)))
	for _, f := range s.fired {
		w.i(f)
	}
	w.u(uint64(len(s.witnessed)))
	for _, x := range s.witnessed {
		if x {
			w.u(1)
		} else {
			w.u(0)
		}
	}
	w.i(s.deadlock)
	if s.fail == nil {
		w.u(0)
	} else {
		w.u(1)
		w.key(s.fail.k)
		w.execError(s.fail.ex)
	}
	if s.bad == nil {
		w.u(0)
	} else {
		w.u(1)
		w.key(s.bad.k)
		w.i(int64(s.bad.local))
		w.i(int64(s.bad.b.inv))
		if s.bad.b.ex == nil {
			w.u(0)
		} else {
			w.u(1)
			w.execError(s.bad.b.ex)
		}
	}
	return w.b
}

func decodeSummary(p []byte) (*summary, error) {
	r := &reader{b: p}
	s := &summary{}
	s.keys = make([]key, r.count(2))
	var prev key
	for i := range s.keys {
		s.keys[i] = key{Pos: prev.Pos + r.u(), Ord: r.u()}
		if i > 0 && !prev.Less(s.keys[i]) {
			r.err = errPayload // keys ascend strictly (positions rely on it)
		}
		prev = s.keys[i]
	}
	s.states = r.i()
	s.trans = r.i()
	s.fired = make([]int64, r.count(1))
	for i := range s.fired {
		s.fired[i] = r.i()
	}
	s.witnessed = make([]bool, r.count(1))
	for i := range s.witnessed {
		s.witnessed[i] = r.u() != 0
	}
	s.deadlock = r.i()
	if r.u() != 0 {
		s.fail = &failure{k: r.key(), ex: r.execError()}
		if s.fail.ex.Kind != machine.Assertion && s.fail.ex.Kind != machine.RuntimeError {
			r.err = errPayload
		}
	}
	if r.u() != 0 {
		s.bad = &badState{k: r.key(), local: int(r.i())}
		s.bad.b.inv = int(r.i())
		if r.u() != 0 {
			s.bad.b.ex = r.execError()
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return s, nil
}

package cluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// FormatVersion is the version of the store's file layout and frame
// format; a store written by another version is refused. Version 2 added
// the frame's codec byte (stored or zstd); version 3 checks a frame with
// a CRC-32C, not a CRC-64 (the processor's instruction, not a table: the
// CRC-64 was a seventieth of one worker's CPU on pipeline K=3 N=2).
const FormatVersion = 3

// Kind is the kind of a frame file.
type Kind uint8

// Frame kinds.
const (
	KindBatch   Kind = 1 + iota // successors sent by one worker to another
	KindStates                  // the new states of a level owned by one worker
	KindSummary                 // a worker's summary of a level
	KindReply                   // the owner's answer to a batch (partial-order reduction)
	KindResult                  // the result of a finished search
	KindRest                    // successors of the actions outside the ample sets
)

var kindNames = [...]string{"", "batch", "states", "summary", "reply", "result", "rest"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

// Manifest describes a run: the files under a prefix belong to the run
// whose manifest is there. Spec identifies the spec and every option that
// changes the search; Workers is the number of workers N; Partition is
// the owner function ([Partition.String]: the names of the slots that
// decide it; "", left out of run.json: the whole state), which every
// worker must share.
type Manifest struct {
	Format    int    `json:"format"`
	Spec      string `json:"spec"`
	Workers   int    `json:"workers"`
	Partition string `json:"partition,omitempty"`
}

// ErrStale is returned by a write of a worker whose lease another
// incarnation of the same index took over: the stale worker must stop.
var ErrStale = errors.New("lease lost: another worker with this index started; this one stops")

// CorruptError reports a file of the store that cannot be read as what it
// should be: truncated, corrupt (checksum), of another run (foreign) or of
// another format.
type CorruptError struct {
	Path string // the file's key, under the store's prefix
	Msg  string
}

func (e *CorruptError) Error() string { return "store file " + e.Path + ": " + e.Msg }

// ForeignRunError reports a store whose prefix holds another run: another
// spec, other options or another number of workers.
type ForeignRunError struct {
	URL       string
	Have, Got Manifest
}

func (e *ForeignRunError) Error() string {
	var why []string
	if e.Have.Format != e.Got.Format {
		why = append(why, fmt.Sprintf("format %d, not %d", e.Have.Format, e.Got.Format))
	}
	if e.Have.Spec != e.Got.Spec {
		why = append(why, "another spec or other options (spec hash "+short(e.Have.Spec)+", not "+short(e.Got.Spec)+")")
	}
	if e.Have.Workers != e.Got.Workers {
		why = append(why, fmt.Sprintf("%d workers, not %d", e.Have.Workers, e.Got.Workers))
	}
	if e.Have.Partition != e.Got.Partition {
		why = append(why, "partition by "+partitionName(e.Have.Partition)+", not by "+partitionName(e.Got.Partition))
	}
	return fmt.Sprintf("store %s holds another run: %s; use another prefix or empty this one", e.URL, strings.Join(why, ", "))
}

// partitionName names a manifest's partition in a message: at most
// maxNamed bytes of it (the store's run.json may hold anything up to
// maxManifest).
func partitionName(p string) string {
	if p == "" {
		return "the whole state"
	}
	if len(p) > maxNamed {
		return fmt.Sprintf("%q... (%d bytes)", p[:maxNamed], len(p))
	}
	return p
}

// maxNamed is the most of a manifest's partition that a message quotes.
const maxNamed = 120

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Store is the run's storage: the files under one prefix of a bucket. It
// is safe for concurrent use; writes check the worker's lease.
type Store struct {
	url    string
	bucket Bucket
	run    [16]byte // the run ID: the manifest's hash
	index  int      // the worker's index; -1: a reader only
	gen    int      // the worker's lease generation
	// Poll is the longest wait between two looks for a file that another
	// worker has not written yet; the first looks come sooner.
	Poll time.Duration
	// LeaseEvery is how long a lease check holds: Put lists the leases
	// again only when the last check is older (0: before every Put).
	LeaseEvery time.Duration
	// Compress makes Put compress payloads with zstd (Get reads both
	// kinds of frame). Open sets it for s3://, whose bytes cross a
	// network, and not for file:// and mem://, where zstd's CPU costs
	// more than the bytes it saves (docs/distributed.md).
	Compress bool
	enc      *zstd.Encoder
	owned    bool // Close closes the bucket

	mu        sync.Mutex
	leaseSeen time.Time       // the last check that found the lease ours
	decs      []*zstd.Decoder // idle stream decoders
}

// maxRaw bounds the decompressed payload of any frame, whatever its
// Bound; maxManifest the length of run.json.
const (
	maxRaw      = 1 << 34
	maxManifest = 64 << 10
)

// Open opens the bucket at url (file:///dir, mem://, s3://bucket?prefix=p/:
// see [OpenBucket]) and reads or creates the run manifest: a manifest of
// another run is a *ForeignRunError.
func Open(ctx context.Context, url string, man Manifest) (*Store, error) {
	st, _, err := open(ctx, url, man, false)
	return st, err
}

// OpenRecorded is [Open] with every operation on the bucket logged by
// the Recorder it returns (from the manifest's creation on).
func OpenRecorded(ctx context.Context, url string, man Manifest) (*Store, *Recorder, error) {
	return open(ctx, url, man, true)
}

func open(ctx context.Context, url string, man Manifest, record bool) (*Store, *Recorder, error) {
	b, err := OpenBucket(ctx, url)
	if err != nil {
		return nil, nil, fmt.Errorf("store %s: %v", url, err)
	}
	var rec *Recorder
	if record {
		rec = Record(b)
		b = rec
	}
	st, err := Attach(ctx, url, b, man)
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	st.owned = true
	st.Compress = strings.HasPrefix(url, "s3:")
	return st, rec, nil
}

// Attach is [Open] on a bucket the caller opened (and closes): url names
// it in messages. Tests share one [MemBucket] between workers with it.
func Attach(ctx context.Context, url string, b Bucket, man Manifest) (*Store, error) {
	man.Format = FormatVersion
	want, err := json.Marshal(man)
	if err != nil {
		return nil, err
	}
	want = append(want, '\n')
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	st := &Store{url: url, bucket: b, index: -1, Poll: 50 * time.Millisecond, LeaseEvery: time.Second, enc: enc}
	const name = "run.json"
	werr := b.Create(ctx, name, want)
	if werr != nil && !errors.Is(werr, ErrExist) {
		return nil, fmt.Errorf("store %s: writing %s: %v", url, name, werr)
	}
	have, err := ReadAll(ctx, b, name, maxManifest)
	if err != nil {
		return nil, fmt.Errorf("store %s: reading %s: %v", url, name, err)
	}
	if !bytes.Equal(have, want) {
		var hm Manifest
		if err := json.Unmarshal(have, &hm); err != nil {
			return nil, &CorruptError{Path: name, Msg: "not a wrapcheck run manifest"}
		}
		return nil, &ForeignRunError{URL: url, Have: hm, Got: man}
	}
	sum := sha256.Sum256(want)
	copy(st.run[:], sum[:])
	return st, nil
}

// Close releases the store, and closes the bucket unless the caller
// attached it.
func (s *Store) Close() error {
	s.enc.Close()
	s.mu.Lock()
	for _, d := range s.decs {
		d.Close()
	}
	s.decs = nil
	s.mu.Unlock()
	if !s.owned {
		return nil
	}
	return s.bucket.Close()
}

// URL returns the URL the store was opened with.
func (s *Store) URL() string { return s.url }

// RunID returns the run's ID in hex: the hash of its manifest.
func (s *Store) RunID() string { return hex.EncodeToString(s.run[:]) }

// Acquire takes the lease of worker index: it creates the next lease
// generation of the index (conditional create, so two workers cannot take
// the same one). From then on the store writes as that worker, and every
// write fails with [ErrStale] once a later generation exists.
func (s *Store) Acquire(ctx context.Context, index int) error {
	gen, err := s.lastLease(ctx, index)
	if err != nil {
		return err
	}
	for {
		gen++
		err := s.bucket.Create(ctx, leaseKey(index, gen), []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"))
		if err == nil {
			s.index, s.gen = index, gen
			return nil
		}
		if !errors.Is(err, ErrExist) {
			return fmt.Errorf("store %s: taking lease %d: %v", s.url, index, err)
		}
	}
}

// Generation returns the lease generation the store writes under (0:
// none taken).
func (s *Store) Generation() int { return s.gen }

func leaseKey(index, gen int) string { return fmt.Sprintf("lease/%d/%08d", index, gen) }

// lastLease returns the largest lease generation of index (0: none).
func (s *Store) lastLease(ctx context.Context, index int) (int, error) {
	keys, err := s.bucket.List(ctx, fmt.Sprintf("lease/%d/", index))
	if err != nil {
		return 0, fmt.Errorf("store %s: listing leases: %v", s.url, err)
	}
	last := 0
	for _, k := range keys {
		g, err := strconv.Atoi(k[strings.LastIndexByte(k, '/')+1:])
		if err != nil {
			return 0, &CorruptError{Path: k, Msg: "not a lease"}
		}
		last = max(last, g)
	}
	return last, nil
}

// CheckLease reports ErrStale when a later generation took over the
// worker's index.
func (s *Store) CheckLease(ctx context.Context) error {
	if s.index < 0 {
		return errors.New("cluster: write without a lease")
	}
	last, err := s.lastLease(ctx, s.index)
	if err != nil {
		return err
	}
	if last != s.gen {
		return ErrStale
	}
	return nil
}

// A Name locates a frame: its kind, the search it belongs to (a check
// may run several), the BFS level, and the writing (Src) and receiving
// (Dst) workers; a file of one worker has Dst = Src.
type Name struct {
	Kind          Kind
	Search, Level int
	Src, Dst      int
}

// Key returns the file's key under the store's prefix.
func (n Name) Key() string {
	switch n.Kind {
	case KindBatch, KindReply, KindRest:
		return fmt.Sprintf("s%d/L%06d/%s-%d-%d.wc", n.Search, n.Level, n.Kind, n.Src, n.Dst)
	case KindResult:
		return fmt.Sprintf("s%d/%s.wc", n.Search, n.Kind)
	}
	return fmt.Sprintf("s%d/L%06d/%s-%d.wc", n.Search, n.Level, n.Kind, n.Src)
}

// The frame format: a header, the payload as its codec stores it, and a
// CRC-32C (Castagnoli) of the header and the stored payload, little-endian.
//
//	magic   [8]byte "WRAPCHK\x03"
//	kind    uint8
//	codec   uint8: 0 the payload as is, 1 zstd
//	2 bytes zero
//	search, level, src, dst uint32
//	run     [16]byte: the run ID
//	count   uint64: the records of the payload (as its writer counts them)
//	raw     uint64: the payload's length
//	comp    uint64: the stored payload's length (raw when stored as is)
const (
	magic      = "WRAPCHK\x03"
	headerSize = 8 + 4 + 16 + 16 + 24
	crcSize    = 4
)

// The codecs of a frame's payload.
const (
	codecStored = 0
	codecZstd   = 1
)

// crcTable returns the CRC-32C table of the files: made on first use, not
// at every process's start.
func crcTable() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// Put writes a frame once: the file is created only if it does not exist
// (a worker restarted in the middle of a level writes the same bytes
// again, since the search is deterministic). It fails with ErrStale when
// the worker lost its lease, as last checked (at most LeaseEvery ago: a
// stale worker may still write in that window, the same bytes as its
// successor, and stops at its next check).
func (s *Store) Put(ctx context.Context, n Name, count uint64, payload []byte) (int, error) {
	size, _, err := s.create(ctx, n, count, payload)
	return size, err
}

// create is Put, and reports whether this write created the file (false:
// it was there, and keeps its bytes).
func (s *Store) create(ctx context.Context, n Name, count uint64, payload []byte) (size int, created bool, err error) {
	f := make([]byte, headerSize, headerSize+len(payload)+crcSize)
	return s.createFrame(ctx, n, count, append(f, payload...))
}

// newFrame returns a buffer for a payload of about size bytes that
// createFrame writes in place: room for the header before the payload
// (which the caller appends) and for the CRC after it.
func newFrame(size int) []byte { return make([]byte, headerSize, headerSize+size+crcSize) }

// createFrame is create of the payload frame[headerSize:], frame made by
// newFrame: the header is written in frame's room and the CRC appended,
// so that a payload stored as is is not copied. The caller may reuse
// frame once createFrame returns.
func (s *Store) createFrame(ctx context.Context, n Name, count uint64, frame []byte) (size int, created bool, err error) {
	s.mu.Lock()
	fresh := s.LeaseEvery > 0 && time.Since(s.leaseSeen) < s.LeaseEvery
	s.mu.Unlock()
	if !fresh {
		if err := s.CheckLease(ctx); err != nil {
			return 0, false, err
		}
		s.mu.Lock()
		s.leaseSeen = time.Now()
		s.mu.Unlock()
	}
	if n.Kind != KindResult && n.Src != s.index {
		return 0, false, fmt.Errorf("cluster: worker %d writing a file of worker %d", s.index, n.Src)
	}
	payload := frame[headerSize:]
	buf := frame
	if s.Compress {
		buf = s.enc.EncodeAll(payload, make([]byte, headerSize, headerSize+len(payload)/2+crcSize))
		buf[9] = codecZstd
	} else {
		clear(buf[:headerSize])
	}
	copy(buf, magic)
	buf[8] = byte(n.Kind)
	le := binary.LittleEndian
	le.PutUint32(buf[12:], uint32(n.Search))
	le.PutUint32(buf[16:], uint32(n.Level))
	le.PutUint32(buf[20:], uint32(n.Src))
	le.PutUint32(buf[24:], uint32(n.Dst))
	copy(buf[28:44], s.run[:])
	le.PutUint64(buf[44:], count)
	le.PutUint64(buf[52:], uint64(len(payload)))
	le.PutUint64(buf[60:], uint64(len(buf)-headerSize))
	buf = le.AppendUint32(buf, crc32.Checksum(buf, crcTable()))
	err = s.bucket.Create(ctx, n.Key(), buf)
	if errors.Is(err, ErrExist) {
		return len(buf), false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store %s: writing %s: %w", s.url, n.Key(), err)
	}
	return len(buf), true, nil
}

// Exists reports whether the frame n is written.
func (s *Store) Exists(ctx context.Context, n Name) (bool, error) {
	ok, err := s.bucket.Exists(ctx, n.Key())
	if err != nil {
		return false, fmt.Errorf("store %s: %w", s.url, err)
	}
	return ok, nil
}

// A Bound is the most that a frame can hold which its reader can need:
// at most Records records (NoBound: as many as the frame's header says)
// of at most Record bytes each, and Fixed bytes besides. A frame whose
// header claims more is a *CorruptError before its payload is read, and
// no more of the object than its header's length is read, nor decoded
// than its header's payload length.
type Bound struct {
	Records uint64
	Record  uint64
	Fixed   uint64
}

// NoBound is Bound.Records of a frame whose reader knows no bound on its
// records but the header's count.
const NoBound = ^uint64(0)

// payload returns the most payload bytes a frame of count records takes.
func (b Bound) payload(count uint64) uint64 {
	if b.Record > 0 && count > (maxRaw-min(b.Fixed, maxRaw))/b.Record {
		return maxRaw + 1
	}
	return b.Fixed + count*b.Record
}

// compBound is the most bytes zstd compresses raw bytes to (its
// incompressible blocks, headers and checksum), with room to spare.
func compBound(raw uint64) uint64 { return raw + raw>>7 + 1024 }

// Get reads the frame n and returns its record count and payload, which
// b bounds. A file that is not a frame of this run at this place, or
// that claims more than b, is a *CorruptError; a missing file is an
// error for which IsNotExist reports true.
func (s *Store) Get(ctx context.Context, n Name, b Bound) (uint64, []byte, error) {
	key := n.Key()
	r, err := s.bucket.NewReader(ctx, key)
	if err != nil {
		if errors.Is(err, ErrNotExist) {
			return 0, nil, &notExistError{key}
		}
		return 0, nil, fmt.Errorf("store %s: reading %s: %w", s.url, key, err)
	}
	defer r.Close()
	return s.read(key, n, b, r)
}

// read reads and decodes the frame of key from r: the header first, then
// as many bytes as the header says, and one more to know that there are
// no more.
func (s *Store) read(key string, n Name, b Bound, r io.Reader) (uint64, []byte, error) {
	bad := func(msg string) (uint64, []byte, error) { return 0, nil, &CorruptError{Path: key, Msg: msg} }
	readErr := func(err error) (uint64, []byte, error) {
		return 0, nil, fmt.Errorf("store %s: reading %s: %w", s.url, key, err)
	}
	buf := make([]byte, headerSize)
	got, err := io.ReadFull(r, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return readErr(err)
	}
	buf = buf[:got]
	if len(buf) < len(magic) || string(buf[:len(magic)]) != magic {
		if len(buf) < len(magic) && strings.HasPrefix(magic, string(buf)) {
			return bad("truncated: " + strconv.Itoa(len(buf)) + " bytes")
		}
		return bad("not a wrapcheck store file of format " + strconv.Itoa(FormatVersion))
	}
	if len(buf) < headerSize {
		return bad("truncated: " + strconv.Itoa(len(buf)) + " bytes")
	}
	le := binary.LittleEndian
	if !bytes.Equal(buf[28:44], s.run[:]) {
		return bad("written by another run (run " + hex.EncodeToString(buf[28:36]) + ", this run is " + s.RunID()[:16] + ")")
	}
	hn := Name{Kind: Kind(buf[8]), Search: int(le.Uint32(buf[12:])), Level: int(le.Uint32(buf[16:])),
		Src: int(le.Uint32(buf[20:])), Dst: int(le.Uint32(buf[24:]))}
	if hn != n {
		return bad(fmt.Sprintf("holds %s, not %s", hn.Key(), key))
	}
	count, raw, comp := le.Uint64(buf[44:]), le.Uint64(buf[52:]), le.Uint64(buf[60:])
	codec := buf[9]
	switch {
	case codec != codecStored && codec != codecZstd || buf[10] != 0 || buf[11] != 0:
		return bad(fmt.Sprintf("an unknown codec %d.%d.%d", buf[9], buf[10], buf[11]))
	case count > b.Records:
		return bad(fmt.Sprintf("%d records, more than the %d the run can need", count, b.Records))
	case raw > b.payload(count) || raw > maxRaw:
		return bad(fmt.Sprintf("a payload of %d bytes, more than %d %s records can take", raw, count, n.Kind))
	case codec == codecStored && comp != raw:
		return bad(fmt.Sprintf("%d stored bytes for a payload of %d", comp, raw))
	case comp > compBound(raw):
		return bad(fmt.Sprintf("%d compressed bytes, more than a payload of %d bytes needs", comp, raw))
	}
	want := headerSize + comp + crcSize
	buf = slices.Grow(buf, int(comp+crcSize))[:want]
	got, err = io.ReadFull(r, buf[headerSize:])
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return bad(fmt.Sprintf("truncated: %d bytes, the header says %d", headerSize+got, want))
	}
	if err != nil {
		return readErr(err)
	}
	var one [1]byte
	if m, _ := io.ReadFull(r, one[:]); m > 0 {
		return bad(fmt.Sprintf("longer than the %d bytes the header says", want))
	}
	body := buf[:len(buf)-crcSize]
	if crc32.Checksum(body, crcTable()) != le.Uint32(buf[len(buf)-crcSize:]) {
		return bad("checksum mismatch: the file is corrupt")
	}
	if codec == codecStored {
		return count, buf[headerSize : len(buf)-crcSize], nil
	}
	payload, err := s.inflate(buf[headerSize:len(buf)-crcSize], raw)
	if err != nil {
		return bad("payload: " + err.Error())
	}
	return count, payload, nil
}

// inflate decodes comp, which must decode to raw bytes exactly: it
// decodes no more than raw bytes and one, and allocates as the bytes
// come (a zstd block of 4 bytes decodes to at most 128 KiB), not as the
// header claims.
func (s *Store) inflate(comp []byte, raw uint64) ([]byte, error) {
	s.mu.Lock()
	var d *zstd.Decoder
	if k := len(s.decs); k > 0 {
		d, s.decs = s.decs[k-1], s.decs[:k-1]
	}
	s.mu.Unlock()
	if d == nil {
		var err error
		// The encoder's window is 8 MiB: a frame asking more is not ours.
		d, err = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxRaw), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		s.mu.Lock()
		s.decs = append(s.decs, d)
		s.mu.Unlock()
	}()
	if err := d.Reset(bytes.NewReader(comp)); err != nil {
		return nil, err
	}
	out := make([]byte, 0, min(raw, uint64(len(comp))<<15+1<<17))
	for uint64(len(out)) < raw {
		if len(out) == cap(out) {
			out = slices.Grow(out, int(min(uint64(cap(out)), raw-uint64(len(out)))))
		}
		m, err := d.Read(out[len(out):int(min(uint64(cap(out)), raw))])
		out = out[:len(out)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if uint64(len(out)) < raw {
		return nil, fmt.Errorf("%d bytes, the header says %d", len(out), raw)
	}
	var one [1]byte
	if m, _ := d.Read(one[:]); m > 0 {
		return nil, fmt.Errorf("more than the %d bytes the header says", raw)
	}
	return out, nil
}

type notExistError struct{ key string }

func (e *notExistError) Error() string { return "store file " + e.key + ": not written" }

// IsNotExist reports whether err says a file is not written.
func IsNotExist(err error) bool {
	var ne *notExistError
	return errors.As(err, &ne)
}

// Wait reads the frame n, waiting for another worker to write it: it
// looks again after 1ms, 2ms, 4ms ... up to Poll. It returns ctx's
// error when ctx ends first.
func (s *Store) Wait(ctx context.Context, n Name, b Bound) (uint64, []byte, error) {
	d := time.Millisecond
	for {
		c, p, err := s.Get(ctx, n, b)
		if !IsNotExist(err) {
			return c, p, err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return 0, nil, ctx.Err()
		case <-t.C:
		}
		d = min(2*d, s.Poll)
	}
}

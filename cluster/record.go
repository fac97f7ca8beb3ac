package cluster

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// A Recorder is a bucket seen through a log of its operations: for each,
// when it started and ended, the process's CPU time then, the bytes it
// moved and, for a frame, the records its header counts. Measurements of
// the distributed search read it (the store requests a level costs, on
// its critical path; bench/cluster.sh). It is safe for concurrent use.
type Recorder struct {
	b     Bucket
	start time.Time
	mu    sync.Mutex
	ops   []Op
}

// An Op is one operation of a [Recorder]'s bucket. Start and End are
// since the recorder was made; CPU0 and CPU1 are the process's CPU time
// at them. A read's End is when its reader was closed, and Bytes what was
// read; a create's Bytes what was written, and Records the frame
// header's count (-1: not a frame). Result is ok, missing (a read of a
// missing key: a poll that found nothing), exists (a create of a taken
// key) or error.
type Op struct {
	Kind       string // create, read, exists, list, delete
	Key        string
	Start, End time.Duration
	CPU0, CPU1 time.Duration
	Bytes      int64
	Records    int64
	Result     string
}

// Record returns a Recorder of b's operations; closing it closes b.
func Record(b Bucket) *Recorder { return &Recorder{b: b, start: time.Now()} }

// Ops returns the operations so far, in the order they ended.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Op(nil), r.ops...)
}

// WriteTo writes the operations as tab-separated lines under a header
// line: kind, key, start, end, cpu0, cpu1 (nanoseconds), bytes, records,
// result.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	n, _ := fmt.Fprintln(bw, "kind\tkey\tstart_ns\tend_ns\tcpu0_ns\tcpu1_ns\tbytes\trecords\tresult")
	total := int64(n)
	for _, o := range r.Ops() {
		n, _ := fmt.Fprintf(bw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", o.Kind, o.Key, o.Start, o.End, o.CPU0, o.CPU1, o.Bytes, o.Records, o.Result)
		total += int64(n)
	}
	return total, bw.Flush()
}

// begin starts an Op.
func (r *Recorder) begin(kind, key string) Op {
	return Op{Kind: kind, Key: key, Start: time.Since(r.start), CPU0: processCPU(), Records: -1}
}

// end finishes an Op with err's result and logs it.
func (r *Recorder) end(o Op, err error) {
	o.End, o.CPU1 = time.Since(r.start), processCPU()
	switch {
	case err == nil:
		o.Result = "ok"
	case errors.Is(err, ErrNotExist):
		o.Result = "missing"
	case errors.Is(err, ErrExist):
		o.Result = "exists"
	default:
		o.Result = "error"
	}
	r.mu.Lock()
	r.ops = append(r.ops, o)
	r.mu.Unlock()
}

// Create implements [Bucket].
func (r *Recorder) Create(ctx context.Context, key string, data []byte) error {
	o := r.begin("create", key)
	o.Bytes = int64(len(data))
	if len(data) >= headerSize && string(data[:len(magic)]) == magic {
		o.Records = int64(binary.LittleEndian.Uint64(data[44:]))
	}
	err := r.b.Create(ctx, key, data)
	r.end(o, err)
	return err
}

// NewReader implements [Bucket]; the read is logged when its reader is
// closed.
func (r *Recorder) NewReader(ctx context.Context, key string) (io.ReadCloser, error) {
	o := r.begin("read", key)
	rc, err := r.b.NewReader(ctx, key)
	if err != nil {
		r.end(o, err)
		return nil, err
	}
	return &recordedReader{r: r, o: o, rc: rc}, nil
}

type recordedReader struct {
	r  *Recorder
	o  Op
	rc io.ReadCloser
}

func (rr *recordedReader) Read(p []byte) (int, error) {
	n, err := rr.rc.Read(p)
	rr.o.Bytes += int64(n)
	return n, err
}

func (rr *recordedReader) Close() error {
	err := rr.rc.Close()
	rr.r.end(rr.o, nil)
	return err
}

// Exists implements [Bucket].
func (r *Recorder) Exists(ctx context.Context, key string) (bool, error) {
	o := r.begin("exists", key)
	ok, err := r.b.Exists(ctx, key)
	r.end(o, err)
	return ok, err
}

// List implements [Bucket].
func (r *Recorder) List(ctx context.Context, prefix string) ([]string, error) {
	o := r.begin("list", prefix)
	keys, err := r.b.List(ctx, prefix)
	r.end(o, err)
	return keys, err
}

// Delete implements [Bucket].
func (r *Recorder) Delete(ctx context.Context, key string) error {
	o := r.begin("delete", key)
	err := r.b.Delete(ctx, key)
	r.end(o, err)
	return err
}

// Close implements [Bucket].
func (r *Recorder) Close() error { return r.b.Close() }

package guard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// journalHeader is the first line of a journal.
type journalHeader struct {
	Journal string `json:"journal"` // "wrapcheck guard"
	Version int    `json:"version"` // 1
	Spec    string `json:"spec"`
	Digest  string `json:"digest"`
}

const journalMagic = "wrapcheck guard"

// journal is the append-only file of the decisions that changed runs:
// one request a line (opens, allowed steps, closes), after a header. A
// record is appended under the guard's lock, so the file's order is the
// order of the decisions, and synced by group commit: the first waiter
// writes and syncs everything pending, the others wait for it.
type journal struct {
	f *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	// appended and synced count records: a record's answer may be given
	// once synced reaches its number.
	appended, synced int64
	syncing          bool
	err              error // sticky: once a write or sync failed, every wait fails

	records int // the records read at start
}

// openJournal opens (or creates) the journal at path, checks its header
// against the spec's name and digest, calls apply on each record in
// order, and drops a last line left incomplete by a crash (it was never
// answered). A record apply refuses is an error naming its line.
func openJournal(path, name, digest string, apply func(line int, rec []byte) error) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &journal{f: f}
	j.cond = sync.NewCond(&j.mu)
	if err := j.load(path, name, digest, apply); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

func (j *journal) load(path, name, digest string, apply func(line int, rec []byte) error) error {
	br := bufio.NewReaderSize(j.f, 64<<10)
	var off int64 // the end of the last complete line
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long := bytes.Clone(line)
			for err == bufio.ErrBufferFull {
				if len(long) > 2*MaxRequestBytes {
					return fmt.Errorf("%s:%d: journal line longer than %d bytes", path, n+1, 2*MaxRequestBytes)
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			break // an incomplete last line (or none): truncated below
		}
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		n++
		text := bytes.TrimSuffix(line, []byte("\n"))
		if n == 1 {
			var h journalHeader
			if err := json.Unmarshal(text, &h); err != nil || h.Journal != journalMagic {
				return fmt.Errorf("%s:1: not a journal of wrapcheck guard", path)
			}
			if h.Version != 1 {
				return fmt.Errorf("%s:1: journal version %d, this guard reads version 1", path, h.Version)
			}
			if h.Spec != name || h.Digest != digest {
				return fmt.Errorf("%s:1: the journal is of spec %s (digest %.12s), not of this spec %s (digest %.12s): start with another journal", path, h.Spec, h.Digest, name, digest)
			}
		} else if err := apply(n, text); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n, err)
		}
		off += int64(len(line))
	}
	j.records = n - 1
	if err := j.f.Truncate(off); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if _, err := j.f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if n == 0 {
		h, _ := json.Marshal(journalHeader{Journal: journalMagic, Version: 1, Spec: name, Digest: digest})
		if _, err := j.f.Write(append(h, '\n')); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		syncDir(filepath.Dir(path))
	}
	return nil
}

// syncDir syncs a directory so that a file created in it survives a
// crash of the machine; where directories cannot be synced it does
// nothing.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// append adds rec (one line, with its newline) to the journal and
// returns the function that waits until it is synced.
func (j *journal) append(rec []byte) func() error {
	j.mu.Lock()
	j.pending = append(j.pending, rec...)
	j.appended++
	seq := j.appended
	j.mu.Unlock()
	return func() error { return j.wait(seq) }
}

// wait returns once record seq is synced, or the journal failed.
func (j *journal) wait(seq int64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.synced < seq && j.err == nil {
		if j.syncing {
			j.cond.Wait()
			continue
		}
		j.syncing = true
		buf, target := j.pending, j.appended
		j.pending = nil
		j.mu.Unlock()
		_, err := j.f.Write(buf)
		if err == nil {
			err = j.f.Sync()
		}
		j.mu.Lock()
		j.syncing = false
		if err != nil {
			j.err = err
		} else {
			j.synced = target
		}
		j.cond.Broadcast()
	}
	return j.err
}

// close syncs what is pending and closes the file.
func (j *journal) close() error {
	err := j.wait(j.appendedNow())
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.mu.Lock()
	if j.err == nil {
		j.err = errors.New("journal closed")
	}
	j.mu.Unlock()
	return err
}

func (j *journal) appendedNow() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appended
}

// compact rewrites the journal at path with only the records keep keeps
// (by line number, the header being line 1), through a file beside it
// that replaces it once synced: a crash leaves either journal whole. It
// is called at start, before any record is appended.
func (j *journal) compact(path string, keep func(line int, rec []byte) bool) error {
	tmp := path + ".compact"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer os.Remove(tmp) // after the rename, a no-op
	bw := bufio.NewWriterSize(out, 64<<10)
	err = j.each(func(n int, line []byte) {
		if n == 1 || keep(n, bytes.TrimSuffix(line, []byte("\n"))) {
			bw.Write(line)
		}
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		out.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	syncDir(filepath.Dir(path))
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	j.f.Close()
	j.f = f
	return nil
}

// scan calls fn on each record of the journal (line numbers from 2, after
// the header), from the start, and leaves the file at its end.
func (j *journal) scan(fn func(line int, rec []byte) bool) error {
	return j.each(func(n int, line []byte) {
		if n > 1 {
			fn(n, bytes.TrimSuffix(line, []byte("\n")))
		}
	})
}

// each calls fn on each line of the journal (with its newline), from the
// start, and leaves the file at its end.
func (j *journal) each(fn func(n int, line []byte)) error {
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	br := bufio.NewReaderSize(j.f, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		fn(n, line)
	}
	_, err := j.f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

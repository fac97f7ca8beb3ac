package checker

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
)

// spill is a temporary file of fixed-size records that the hash-compacted
// search keeps outside the heap: the trace records of every state, and
// the vectors of the level being expanded. It is removed when closed (and
// unlinked at once where the system allows, so that a killed process
// leaves nothing behind). Reads come from the page cache in practice;
// the file's pages are the kernel's to evict, not the process's.
//
// The first I/O error is kept (err) and ends the search with an error;
// a failed read returns zeros, and the search ends once the level is done.
type spill struct {
	f    spillFile
	name string // to remove on Close; "" once unlinked
	mu   sync.Mutex
	err  error
}

// spillFile is what a spill needs of an *os.File.
type spillFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

// createTemp creates a spill's file and returns it with its name; tests
// replace it to inject I/O errors.
var createTemp = func(pattern string) (spillFile, string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func newSpill(what string) (*spill, error) {
	f, name, err := createTemp("wrapcheck-" + what + "-*")
	if err != nil {
		return nil, fmt.Errorf("checker: hash compaction needs a temporary file: %w", err)
	}
	s := &spill{f: f, name: name}
	if os.Remove(name) == nil {
		s.name = ""
	}
	return s, nil
}

func (s *spill) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = fmt.Errorf("checker: hash compaction temporary file: %w", err)
	}
	s.mu.Unlock()
}

// Err returns the first I/O error.
func (s *spill) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// writeAt writes b at offset off; safe for concurrent use on disjoint
// ranges.
func (s *spill) writeAt(b []byte, off int64) {
	if _, err := s.f.WriteAt(b, off); err != nil {
		s.fail(err)
	}
}

// readAt fills b from offset off (zeros after an error).
func (s *spill) readAt(b []byte, off int64) {
	if _, err := s.f.ReadAt(b, off); err != nil {
		clear(b)
		s.fail(err)
	}
}

func (s *spill) Close() {
	s.f.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
}

// putWords encodes words into b (8 bytes each, little-endian) and returns
// the rest of b.
func putWords(b []byte, words []uint64) []byte {
	for _, w := range words {
		binary.LittleEndian.PutUint64(b, w)
		b = b[8:]
	}
	return b
}

// getWords decodes len(words) words from b.
func getWords(words []uint64, b []byte) {
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}

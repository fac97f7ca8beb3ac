// Package dist runs the breadth-first search of package checker on many
// worker processes that share nothing but object storage (a
// gocloud.dev/blob bucket: file://, mem://, s3://, gs://, azblob://), and
// uses the same files as a checkpoint that an interrupted run resumes from.
//
// # Files
//
// A run lives under one prefix of a bucket ([Store]). run.json, the
// manifest, holds the spec's hash (the spec and every option that changes
// the search) and the number of workers N; it is created once, and a
// worker whose manifest differs refuses the store ([ForeignRunError]).
// lease/I/G is generation G of worker I's lease: a restarted worker takes
// the next generation, and a worker that sees a later generation than its
// own stops before writing ([ErrStale]). Every other file is a frame
// (header, zstd-compressed payload, CRC-64 of both) named by [Name]:
// sS/LDDDDDD/batch-I-J.wc (successors sent by worker I to worker J while
// expanding level D of search S), states-I.wc (the new states of level D
// that worker I owns, with their parent records), summary-I.wc (worker
// I's figures and violation candidates of level D) and sS/result.wc.
// Frames are created once (conditional create) and never changed: a level
// is committed when every worker's summary of it exists. A frame that is
// truncated, corrupt, of another run or in the wrong place is a
// [CorruptError], never read as data.
package dist

// Package cluster runs the breadth-first search of package checker on many
// worker processes that share nothing but object storage (a [Bucket]:
// file://, mem:// or s3://, the last through gocloud.dev's s3blob when
// built with -tags gocloud), and uses the same files as a checkpoint that an interrupted run resumes from.
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
// (header, payload stored as is or zstd-compressed, CRC-32C of both) named by [Name]:
// sS/LDDDDDD/batch-I-J.wc (successors sent by worker I to worker J while
// expanding level D of search S), states-I.wc (the new states of level D
// that worker I owns, with their parent records), summary-I.wc (worker
// I's figures and violation candidates of level D) and sS/result.wc.
// Frames are created once (conditional create) and never changed: a level
// is committed when every worker's summary of it exists. A frame that is
// truncated, corrupt, of another run or in the wrong place is a
// [CorruptError], never read as data; so is one whose header claims more
// records or bytes than its reader can need ([Bound]: the record counts
// the run knows, the bytes a record of the model takes), refused before
// its payload is read. Every object is read through a [Bucket]'s reader
// no further than its reader needs, and a file:// store refuses
// symbolic links, devices and FIFOs.
//
// # Search
//
// [Search] is worker Config.Index's part of one search; [Runner] adapts it
// to verify.Options.Search. A state belongs to one worker, its owner
// ([Partition]; by default one of 4096 shards, the top 12 bits of its
// hash, and worker i owns the shards congruent to i modulo N). The search is checker's level by level: a worker expands its part of
// the committed level on the machine as checker does (Load, RunAction,
// checker's ordinals, Guard and the Ample hook, the Canon hook), sends each
// successor with its key (parent's position in the level, ordinal) to its
// owner, merges what it owns (smallest key per state, invariants checked on
// new states), and writes its states and summary. Under partial-order
// reduction, the owners answer whether an ample successor was stored before
// the level (the cycle proviso), and the other enabled actions follow in a
// second round. Once every summary of a level exists, every worker ranks
// the keys of all summaries (the positions of the next level) and applies
// checker's rule for the level's violation, so every worker returns the
// same Result, equal to checker.RunProgram's for the same options: states,
// transitions, depth, coverage, the violation and its trace, which is
// rebuilt from the states files (parent records) and replayed on the
// machine. [Supported] names the options it does not take.
//
// # Partitions
//
// The owner of a state may be a function of the values of some of its
// slots only ([ParsePartition], check's --partition): a successor whose
// action leaves those slots as they were then has its parent's owner and
// never crosses to another worker. The search stays exact because it
// needs of the owner function only that it is a function of the state:
// (1) every worker computes the same owner for the same packed,
// canonical state (the function reads nothing but the state's bits and
// N, and the manifest holds every worker to the same partition and N);
// so (2) every copy of a state, found by any worker from any parent,
// goes to one worker, whose visited set alone decides whether it is new
// and keeps its smallest key; and (3) the owner's states, levels and
// keys are what the whole-state partition gives it, merely on other
// workers, so ranking all keys gives the same positions and the same
// violation and trace. Nothing requires the owners to be balanced: a
// partition by a variable of one value puts every state on one worker
// (and leaves the others idle), still exact. Under symmetry the owner
// is computed on the canonical form, the stored state. What a partition
// changes is the cost: the fraction of successors that cross and the
// share of the busiest worker (docs/distributed.md, "Partitions").
package cluster

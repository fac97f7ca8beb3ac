package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/wrapcheck/wrapcheck/cluster"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// distFlags are the flags of the distributed search: check's --store and
// --workers-local, worker's --store, --index and --workers.
type distFlags struct {
	worker bool // the worker command
	store  string
	local  int // check: worker processes to run on this machine
	index  int // worker: this worker's index
	n      int // worker: the number of workers of the run
	// partition: the state variables (or parts) whose values decide a
	// state's worker; none: the whole state
	partition []string
}

func addDistFlags(cmd *cobra.Command, d *distFlags) {
	fl := cmd.Flags()
	fl.StringSliceVar(&d.partition, "partition", nil, "with --store: give each state to the worker chosen by the values of these variables or elements (VAR[,VAR...], as a trace names them: x, P[v].y, a[2]), not by the whole state; every worker of a run must give the same")
	if d.worker {
		fl.StringVar(&d.store, "store", "", "bucket URL of the run's files: file:///dir, s3://bucket?prefix=run1/&region=..., mem:// (required)")
		fl.IntVar(&d.index, "index", -1, "this worker's index, 0 to N-1 (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX; required)")
		fl.IntVar(&d.n, "workers", 0, "the number of workers N of the run (required)")
		return
	}
	fl.StringVar(&d.store, "store", "", "run the search over this bucket URL (file:///dir, s3://bucket?prefix=p/): the levels are a checkpoint that a second run resumes from")
	fl.IntVar(&d.local, "workers-local", 0, "with --store: worker processes to start on this machine (0: 1)")
}

func newWorkerCmd() *cobra.Command {
	cmd := checkCommand(true)
	cmd.Use = "worker --store URL --index I --workers N FILE"
	cmd.Short = "run one worker of a distributed search over object storage"
	cmd.Long = `worker runs worker I of N of the breadth-first search of the spec in FILE,
exchanging states with the other workers through the files of the bucket at
--store (object storage: s3://, or file:// on a shared disk). Start the N
workers with the same FILE and flags, one per index, with whatever runs jobs
(a Kubernetes Indexed Job, a CI matrix, a Slurm array); a worker that dies is
restarted with the same index and resumes from the last level every worker
committed. Worker 0 prints the report, as check does (the same flags; it also
checks the properties); the others print nothing. The exit code is check's.`
	cmd.Args = cobra.ExactArgs(1)
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		d := distFlagsOf(cmd)
		switch {
		case d.store == "":
			return &exitError{code: exitUsage, err: errors.New("worker: --store is required")}
		case d.n < 1:
			return &exitError{code: exitUsage, err: errors.New("worker: --workers N is required (N >= 1)")}
		case d.index < 0 || d.index >= d.n:
			return &exitError{code: exitUsage, err: fmt.Errorf("worker: --index %d out of range for %d workers", d.index, d.n)}
		}
		return nil
	}
	return cmd
}

// distFlagsOf reads the worker's flags back from cmd (PreRunE has no
// access to RunE's flag struct).
func distFlagsOf(cmd *cobra.Command) distFlags {
	fl := cmd.Flags()
	d := distFlags{worker: true}
	d.store, _ = fl.GetString("store")
	d.index, _ = fl.GetInt("index")
	d.n, _ = fl.GetInt("workers")
	return d
}

// runHash identifies the run: the spec's bytes, the defines and every
// flag that changes the search, so that workers started with another
// spec or other flags refuse the store.
func runHash(src []byte, f checkFlags) string {
	h := sha256.New()
	h.Write(src)
	fmt.Fprintf(h, "\x00defines=%q only=%q sym=%t por=%t deadlock=%t max-states=%d max-depth=%d",
		f.defines, f.only, !f.noSymmetry, !f.noPOR, !f.noDeadlock, f.maxStates, f.maxDepth)
	return hex.EncodeToString(h.Sum(nil))
}

// startDist opens the run's store for a check or a worker, sets
// opts.Search to the distributed search and, for check --workers-local,
// starts the other local workers. finish waits for them and reports a
// worker that failed; the context returned ends when one fails.
func startDist(ctx context.Context, cmd *cobra.Command, path string, f checkFlags, opts *verify.Options) (context.Context, func() error, error) {
	d := f.dist
	if path == "-" {
		return nil, nil, errors.New("--store needs a spec file, not standard input")
	}
	switch {
	case f.cont:
		return nil, nil, errors.New("--continue is not supported with --store")
	case f.compact:
		return nil, nil, errors.New("--hash-compact is not supported with --store (each worker keeps the states of its shards)")
	case f.memory != "":
		return nil, nil, errors.New("--memory is not supported with --store")
	case d.local < 0:
		return nil, nil, errors.New("--workers-local must not be negative")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	n, index := max(d.local, 1), 0
	if d.worker {
		n, index = d.n, d.index
	}
	part, err := cluster.ParsePartition(opts.Program, d.partition)
	if err != nil {
		return nil, nil, err
	}
	man := cluster.Manifest{Spec: runHash(src, f), Workers: n, Partition: part.String()}
	logDir := os.Getenv(storeLogEnv)
	var st *cluster.Store
	var rec *cluster.Recorder
	if logDir != "" {
		st, rec, err = cluster.OpenRecorded(ctx, d.store, man)
	} else {
		st, err = cluster.Open(ctx, d.store, man)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := st.Acquire(ctx, index); err != nil {
		st.Close()
		return nil, nil, err
	}
	opts.Search = cluster.Runner(st, index, n, part)
	ctx, cancel := context.WithCancelCause(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	var procs []*exec.Cmd
	if !d.worker && n > 1 {
		exe, err := self()
		if err != nil {
			cancel(nil)
			st.Close()
			return nil, nil, err
		}
		for i := 1; i < n; i++ {
			c := exec.Command(exe, workerArgs(f, i, n, path)...)
			c.Stdout = io.Discard
			c.Stderr = cmd.ErrOrStderr()
			if err := c.Start(); err != nil {
				cancel(nil)
				st.Close()
				return nil, nil, fmt.Errorf("starting worker %d: %v", i, err)
			}
			procs = append(procs, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := c.Wait()
				var ee *exec.ExitError
				if err != nil && (!errors.As(err, &ee) || !verdictCode(ee.ExitCode())) {
					mu.Lock()
					if failed == nil {
						failed = fmt.Errorf("worker %d failed: %v", i, err)
					}
					mu.Unlock()
					cancel(failed)
				}
			}()
		}
	}
	finish := func() error {
		if ctx.Err() != nil {
			for _, c := range procs {
				c.Process.Signal(os.Interrupt)
			}
		}
		wg.Wait()
		cancel(nil)
		st.Close()
		mu.Lock()
		defer mu.Unlock()
		if rec != nil {
			if err := writeStoreLog(logDir, index, rec); err != nil && failed == nil {
				return err
			}
		}
		return failed
	}
	return ctx, finish, nil
}

// storeLogEnv names a directory: when it is set, each worker of a
// distributed search logs its store operations to DIR/ops-I.tsv
// ([cluster.Recorder]; for bench/cluster.sh). The workers that
// --workers-local starts inherit it.
const storeLogEnv = "WRAPCHECK_STORE_LOG"

// writeStoreLog writes worker index's log of store operations to dir.
func writeStoreLog(dir string, index int, rec *cluster.Recorder) error {
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("ops-%d.tsv", index)))
	if err != nil {
		return err
	}
	if _, err := rec.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// verdictCode reports whether a worker's exit code is a verdict (holds,
// violated, incomplete) rather than a failure.
func verdictCode(c int) bool { return c == exitHolds || c == exitViolated || c == exitIncomplete }

// self returns the path of this program, to start local workers.
func self() (string, error) {
	if strings.ContainsRune(os.Args[0], os.PathSeparator) {
		return os.Args[0], nil
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p, nil
	}
	return os.Executable()
}

// workerArgs returns the command line of local worker i of n: the
// check's flags that the run's hash covers, and the spec.
func workerArgs(f checkFlags, i, n int, path string) []string {
	args := []string{"worker", "--store", f.dist.store, "--index", strconv.Itoa(i), "--workers", strconv.Itoa(n), "--progress", "off"}
	for _, d := range f.defines {
		args = append(args, "-D", d)
	}
	for _, o := range f.only {
		args = append(args, "--only", o)
	}
	if f.noSymmetry {
		args = append(args, "--no-symmetry")
	}
	if f.noPOR {
		args = append(args, "--no-por")
	}
	if f.noDeadlock {
		args = append(args, "--no-deadlock")
	}
	if f.maxStates > 0 {
		args = append(args, "--max-states", strconv.FormatInt(f.maxStates, 10))
	}
	if f.maxDepth > 0 {
		args = append(args, "--max-depth", strconv.Itoa(f.maxDepth))
	}
	if f.timeout > 0 {
		args = append(args, "--timeout", f.timeout.String())
	}
	if len(f.dist.partition) > 0 {
		args = append(args, "--partition", strings.Join(f.dist.partition, ","))
	}
	return append(args, "--", path)
}

// verdictExit returns the exit of a worker that prints no report: the
// code of its verdict.
func verdictExit(res *verdict.Result) error {
	switch res.Verdict {
	case verdict.Violated:
		return &exitError{code: exitViolated}
	case verdict.Unknown:
		return &exitError{code: exitIncomplete}
	}
	return nil
}

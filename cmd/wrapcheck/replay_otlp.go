package main

import (
	"fmt"
	"io"
	"os"

	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
)

// runReplayOTLP replays each run of an OTLP JSON recording (read from r)
// through the mapping of --mapping: a file whole, standard input
// (stream) as it arrives.
func runReplayOTLP(m *spec.Model, run string, stream bool, r io.Reader, f replayFlags, out *replayOutput) error {
	if f.mapping == "" {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: an OTLP JSON recording: give the mapping of its spans with --mapping FILE (see docs/replay.md)", run)}
	}
	mf, err := os.Open(f.mapping)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer mf.Close()
	mp, err := replay.ParseMapping(m, displayPath(f.mapping), mf)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	none := fmt.Errorf("%s: no span matches a rule of %s: nothing to replay", run, displayPath(f.mapping))
	if stream {
		var werr error
		n, err := replay.StreamOTLP(m, run, r, mp, func(rp *replay.Report) error {
			werr = out.add(rp)
			return werr
		})
		switch {
		case werr != nil:
			return werr
		case err != nil:
			return &exitError{code: exitUsage, err: err}
		case n == 0:
			return &exitError{code: exitUsage, err: none}
		}
		return nil
	}
	runs, err := replay.ReadOTLP(m, run, r, mp)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if len(runs) == 0 {
		return &exitError{code: exitUsage, err: none}
	}
	for _, rn := range runs {
		res, err := replay.Check(m, rn.Lines)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := out.add(replay.NewTracedReport(run, rn, res)); err != nil {
			return err
		}
	}
	return nil
}

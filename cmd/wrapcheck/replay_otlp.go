package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
)

// runReplayOTLP replays each run of an OTLP JSON recording (read from r)
// through the mapping of --mapping.
func runReplayOTLP(cmd *cobra.Command, m *spec.Model, run string, r io.Reader, f replayFlags, out *replayOutput) error {
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
	runs, err := replay.ReadOTLP(m, run, r, mp)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if len(runs) == 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: no span matches a rule of %s: nothing to replay", run, displayPath(f.mapping))}
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

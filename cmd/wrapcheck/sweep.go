package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// maxSweep is the most checks one sweep runs: the product of the number
// of values of its names.
const maxSweep = 10000

// sweepParam is one name of a sweep and its values, in the order given.
type sweepParam struct {
	name   string
	values []int64
}

// parseSweep splits the -D flags into the constants that a sweep varies
// (NAME=LO..HI, NAME=A,B,C, or both: NAME=1..3,8) and the others, kept as
// they are. No sweep: params is empty.
func parseSweep(defines []string) (params []sweepParam, fixed []string, err error) {
	for _, d := range defines {
		name, val, ok := strings.Cut(d, "=")
		if !ok || !strings.Contains(val, "..") && !strings.Contains(val, ",") {
			fixed = append(fixed, d)
			continue
		}
		name = strings.TrimSpace(name)
		p := sweepParam{name: name}
		for _, item := range strings.Split(val, ",") {
			lo, hi, isRange := strings.Cut(strings.TrimSpace(item), "..")
			a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
			}
			switch {
			case err1 != nil || err2 != nil:
				return nil, nil, fmt.Errorf("-D %s: want NAME=LO..HI or NAME=A,B,... (integers) for a sweep", shorten(d))
			case b < a:
				return nil, nil, fmt.Errorf("-D %s: the range %d..%d is empty", shorten(d), a, b)
			case b-a >= maxSweep || len(p.values)+int(b-a) >= maxSweep:
				return nil, nil, fmt.Errorf("-D %s: more than %d values", shorten(d), maxSweep)
			}
			for v := a; ; v++ {
				p.values = append(p.values, v)
				if v == b {
					break
				}
			}
		}
		for _, q := range params {
			if q.name == name {
				return nil, nil, fmt.Errorf("-D %s: given twice (give each constant once)", report.Escape(name))
			}
		}
		params = append(params, p)
	}
	n := 1
	for _, p := range params {
		if n *= len(p.values); n > maxSweep {
			return nil, nil, fmt.Errorf("a sweep of more than %d checks (the product of the values of %s)", maxSweep, sweepNames(params))
		}
	}
	return params, fixed, nil
}

// sweepNames is "N" or "N and M" or "N, M and K".
func sweepNames(params []sweepParam) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = report.Escape(p.name)
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// sweepRun records the result of one check of a sweep (runCheck fills
// it).
type sweepRun struct {
	res *verdict.Result
}

func (s *sweepRun) record(_ *spec.Model, res *verdict.Result) { s.res = res }

// sweepRow is one checked combination of values and its outcome.
type sweepRow struct {
	values []int64
	code   int
	res    *verdict.Result // nil when the spec or the command failed
	errMsg string
	doc    []byte // the check's report in the chosen format
}

// runSweep checks the spec at path once for each combination of the
// values of params (the first name varies slowest), in order, and prints
// a table (text) or one JSON object per check and a summary (JSON). It
// stops after the first value with a violation or an error, unless
// --continue; it exits with the worst code, as a check of several files.
func runSweep(cmd *cobra.Command, path string, f checkFlags, params []sweepParam, fixed []string) error {
	usage := func(err error) error {
		return renderError(cmd, f.format, displayPath(path), &exitError{code: exitUsage, err: err})
	}
	switch {
	case f.format != "text" && f.format != "json":
		return usage(fmt.Errorf("--format %s does not take a sweep (-D %s=...): use text or json", report.Escape(f.format), report.Escape(params[0].name)))
	case f.compile:
		return usage(errors.New("--compile does not take a sweep: check each value on its own"))
	case f.dist.store != "":
		return usage(errors.New("--store does not take a sweep: check each value on its own"))
	}
	stdout := cmd.OutOrStdout()
	defer cmd.SetOut(stdout)
	total := 1
	for _, p := range params {
		total *= len(p.values)
	}
	var rows []sweepRow
	worst := exitHolds
	idx := make([]int, len(params))
	for k := 0; k < total; k++ {
		// the k-th combination, the last name varying fastest
		r := k
		for i := len(params) - 1; i >= 0; i-- {
			idx[i] = r % len(params[i].values)
			r /= len(params[i].values)
		}
		row := sweepRow{values: make([]int64, len(params))}
		g := f
		g.defines = append([]string(nil), fixed...)
		for i, p := range params {
			row.values[i] = p.values[idx[i]]
			g.defines = append(g.defines, fmt.Sprintf("%s=%d", p.name, row.values[i]))
		}
		g.sweep = &sweepRun{}
		var buf bytes.Buffer
		cmd.SetOut(&buf)
		if err := runCheck(cmd, path, g); err != nil {
			var ee *exitError
			if !errors.As(err, &ee) {
				return err
			}
			row.code = ee.code
			if ee.err != nil {
				row.errMsg = errorText(ee.err)
			}
		}
		row.res, row.doc = g.sweep.res, buf.Bytes()
		if worse(row.code, worst) {
			worst = row.code
		}
		rows = append(rows, row)
		if !f.cont && (row.code == exitViolated || row.code == exitUsage) {
			break
		}
	}
	cmd.SetOut(stdout)
	var err error
	if f.format == "json" {
		err = sweepJSON(stdout, params, rows, total, worst)
	} else {
		err = sweepText(cmd, params, rows, total, f.cont)
	}
	if err != nil {
		return err
	}
	if worst != exitHolds {
		return &exitError{code: worst}
	}
	return nil
}

// sweepText prints the table of a sweep, then the report of each value
// that was violated or failed.
func sweepText(cmd *cobra.Command, params []sweepParam, rows []sweepRow, total int, cont bool) error {
	out := cmd.OutOrStdout()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	var head []string
	for _, p := range params {
		head = append(head, report.Escape(p.name))
	}
	fmt.Fprintf(tw, "%s\tverdict\tstates\tdepth\ttime\n", strings.Join(head, "\t"))
	for _, r := range rows {
		vals := make([]string, len(r.values))
		for i, v := range r.values {
			vals[i] = strconv.FormatInt(v, 10)
		}
		states, depth, secs := "-", "-", "-"
		if r.res != nil {
			s := r.res.Stats
			states, depth, secs = strconv.FormatInt(s.States, 10), strconv.Itoa(s.Depth), fmt.Sprintf("%.3f s", s.Seconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", strings.Join(vals, "\t"), outcomeName(r.code), states, depth, secs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rows) < total {
		last := rows[len(rows)-1]
		what := "violated"
		if last.code == exitUsage {
			what = "failing"
		}
		fmt.Fprintf(out, "stopped at %s, the first %s value: %d of %d checked (--continue checks every value)\n",
			sweepAssign(params, last.values), what, len(rows), total)
	}
	for _, r := range rows {
		if r.code != exitViolated && r.code != exitUsage {
			continue
		}
		fmt.Fprintf(out, "\n== %s\n", sweepAssign(params, r.values))
		out.Write(r.doc)
		if r.errMsg != "" {
			fmt.Fprintln(out, r.errMsg)
		}
	}
	return nil
}

// sweepAssign is "N=3" or "N=3 M=1".
func sweepAssign(params []sweepParam, values []int64) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = fmt.Sprintf("%s=%d", report.Escape(p.name), values[i])
	}
	return strings.Join(parts, " ")
}

// sweepSummary is the last line of `check --format json` for a sweep.
type sweepSummary struct {
	Format int `json:"format"`
	Sweep  struct {
		Names      []string `json:"names"`
		Values     int      `json:"values"`
		Checked    int      `json:"checked"`
		Holds      int      `json:"holds"`
		Violated   int      `json:"violated"`
		Incomplete int      `json:"incomplete"`
		Error      int      `json:"error"`
	} `json:"sweep"`
	ExitCode int `json:"exit_code"`
}

// sweepJSON prints one JSON object a line per value checked (its report,
// or its error report, with "defines": {"N": value} first), then a
// summary object.
func sweepJSON(out io.Writer, params []sweepParam, rows []sweepRow, total, worst int) error {
	var sum sweepSummary
	sum.Format, sum.ExitCode = report.FormatVersion, worst
	for _, p := range params {
		sum.Sweep.Names = append(sum.Sweep.Names, p.name)
	}
	sum.Sweep.Values, sum.Sweep.Checked = total, len(rows)
	for _, r := range rows {
		switch outcomeName(r.code) {
		case "holds":
			sum.Sweep.Holds++
		case "violated":
			sum.Sweep.Violated++
		case "incomplete":
			sum.Sweep.Incomplete++
		default:
			sum.Sweep.Error++
		}
		var defs bytes.Buffer
		defs.WriteString(`{"defines":{`)
		for i, p := range params {
			if i > 0 {
				defs.WriteByte(',')
			}
			name, _ := json.Marshal(p.name)
			fmt.Fprintf(&defs, "%s:%d", name, r.values[i])
		}
		defs.WriteString("}")
		var line bytes.Buffer
		doc := bytes.TrimSpace(r.doc)
		if len(doc) == 0 { // an error with no report in this format
			msg, _ := json.Marshal(r.errMsg)
			doc = fmt.Appendf(nil, `{"format":%d,"error":%s}`, report.FormatVersion, msg)
		}
		if err := json.Compact(&line, doc); err != nil {
			return err
		}
		body := bytes.TrimPrefix(line.Bytes(), []byte("{"))
		if len(body) > 1 {
			defs.WriteByte(',')
		}
		defs.Write(body)
		defs.WriteByte('\n')
		if _, err := out.Write(defs.Bytes()); err != nil {
			return err
		}
	}
	return json.NewEncoder(out).Encode(sum)
}

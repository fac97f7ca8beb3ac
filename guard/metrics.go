package guard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// latencyBounds are the upper bounds, in seconds, of the buckets of the
// decision latency histogram.
var latencyBounds = [...]float64{10e-6, 50e-6, 100e-6, 500e-6, 1e-3, 5e-3, 10e-3, 50e-3, 100e-3, 1}

// metrics counts the guard's decisions for [Guard.WriteMetrics].
type metrics struct {
	mu       sync.Mutex
	allowed  int64
	retried  int64 // allowed steps answered again to a retry
	blocks   map[blockKey]int64
	buckets  [len(latencyBounds) + 1]int64
	sum      float64
	observed int64
}

type blockKey struct{ kind, property string }

// observe counts one decision, taken in dur.
func (g *Guard) observe(req Request, d *Decision, retried bool, start time.Time) {
	dur := time.Since(start)
	if g.opts.Spans != nil {
		g.opts.Spans.add(req, d, retried, start, dur)
	}
	m := &g.metrics
	m.mu.Lock()
	switch {
	case d == nil || d.Decision == "allow":
		m.allowed++
		if retried {
			m.retried++
		}
	default:
		if m.blocks == nil {
			m.blocks = map[blockKey]int64{}
		}
		m.blocks[blockKey{d.Kind, d.Property}]++
	}
	s := dur.Seconds()
	i := 0
	for i < len(latencyBounds) && s > latencyBounds[i] {
		i++
	}
	m.buckets[i]++
	m.sum += s
	m.observed++
	m.mu.Unlock()
	if lg := g.opts.Logger; lg != nil {
		// req's strings may be the request's bytes (decodeFast), which a
		// handler that keeps the record must not see reused
		attrs := []slog.Attr{slog.String("run", strings.Clone(req.Run)), slog.String("op", opName(req.Op))}
		if req.ID != "" {
			attrs = append(attrs, slog.String("id", strings.Clone(req.ID)))
		}
		if d == nil {
			attrs = append(attrs, slog.String("decision", "allow"), slog.Bool("retried", true))
		} else {
			attrs = append(attrs, slog.String("decision", d.Decision), slog.Int("step", d.Step))
			if d.Decision == "block" {
				attrs = append(attrs, slog.String("kind", d.Kind), slog.String("reason", d.Reason))
			}
			if d.Property != "" {
				attrs = append(attrs, slog.String("property", d.Property))
			}
			if d.Ended != "" {
				attrs = append(attrs, slog.String("ended", d.Ended))
			}
		}
		attrs = append(attrs, slog.Duration("latency", dur))
		lg.LogAttrs(context.Background(), slog.LevelInfo, "decision", attrs...)
	}
}

func opName(op string) string {
	if op == "" {
		return "step"
	}
	return op
}

// WriteMetrics writes the guard's figures in the Prometheus text format
// (version 0.0.4): decisions by outcome, blocks by kind and property,
// retried steps, open runs, the decision latency (journal sync
// included) as a histogram, and the decision spans dropped.
func (g *Guard) WriteMetrics(w io.Writer) error {
	runs := g.Runs()
	m := &g.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP wrapcheck_guard_decisions_total Decisions taken, by outcome.\n# TYPE wrapcheck_guard_decisions_total counter\n")
	var blocked int64
	for _, n := range m.blocks {
		blocked += n
	}
	fmt.Fprintf(&b, "wrapcheck_guard_decisions_total{decision=\"allow\"} %d\n", m.allowed)
	fmt.Fprintf(&b, "wrapcheck_guard_decisions_total{decision=\"block\"} %d\n", blocked)
	b.WriteString("# HELP wrapcheck_guard_blocks_total Blocked requests, by kind and by the property a violating step violates.\n# TYPE wrapcheck_guard_blocks_total counter\n")
	keys := make([]blockKey, 0, len(m.blocks))
	for k := range m.blocks {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b blockKey) int {
		return strings.Compare(a.kind+"\x00"+a.property, b.kind+"\x00"+b.property)
	})
	for _, k := range keys {
		fmt.Fprintf(&b, "wrapcheck_guard_blocks_total{kind=%s,property=%s} %d\n", labelValue(k.kind), labelValue(k.property), m.blocks[k])
	}
	b.WriteString("# HELP wrapcheck_guard_retried_total Allowed steps answered again to a retry with the same id.\n# TYPE wrapcheck_guard_retried_total counter\n")
	fmt.Fprintf(&b, "wrapcheck_guard_retried_total %d\n", m.retried)
	b.WriteString("# HELP wrapcheck_guard_open_runs Runs open now.\n# TYPE wrapcheck_guard_open_runs gauge\n")
	fmt.Fprintf(&b, "wrapcheck_guard_open_runs %d\n", runs)
	b.WriteString("# HELP wrapcheck_guard_decision_seconds The time to decide a request, its journal sync included.\n# TYPE wrapcheck_guard_decision_seconds histogram\n")
	var cum int64
	for i, le := range latencyBounds {
		cum += m.buckets[i]
		fmt.Fprintf(&b, "wrapcheck_guard_decision_seconds_bucket{le=\"%g\"} %d\n", le, cum)
	}
	cum += m.buckets[len(latencyBounds)]
	fmt.Fprintf(&b, "wrapcheck_guard_decision_seconds_bucket{le=\"+Inf\"} %d\n", cum)
	fmt.Fprintf(&b, "wrapcheck_guard_decision_seconds_sum %g\n", m.sum)
	fmt.Fprintf(&b, "wrapcheck_guard_decision_seconds_count %d\n", m.observed)
	if g.opts.Spans != nil {
		dropped, _ := g.opts.Spans.Dropped()
		b.WriteString("# HELP wrapcheck_guard_spans_dropped_total Decision spans not exported (queue full, or the collector failed).\n# TYPE wrapcheck_guard_spans_dropped_total counter\n")
		fmt.Fprintf(&b, "wrapcheck_guard_spans_dropped_total %d\n", dropped)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// labelValue quotes s as a Prometheus label value.
func labelValue(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

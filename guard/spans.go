package guard

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The limits of a [SpanExporter].
const (
	// MaxQueuedSpans is the most decision spans waiting to be exported;
	// past it new ones are dropped (and counted).
	MaxQueuedSpans = 8192
	// spanBatch is the most spans a request exports.
	spanBatch = 512
)

// SpanExporter exports an OpenTelemetry span for each decision of a guard
// ([Options.Spans]) to an OTLP/HTTP endpoint in OTLP JSON (a collector's
// http://HOST:4318/v1/traces), in batches, from a goroutine of its own:
// deciding never waits for it. The spans of one run share a trace (its
// id is a digest of the run id); a span is named "guard.decide" and has
// the attributes gen_ai.conversation.id (the run), wrapcheck.guard.op,
// .action, .decision, .kind, .property, .reason, .step, .ended and .id.
// Spans that cannot be queued or exported are dropped and counted
// ([SpanExporter.Dropped]). It is safe for concurrent use.
type SpanExporter struct {
	endpoint string
	service  string
	client   *http.Client

	mu      sync.Mutex
	queue   []json.RawMessage
	dropped int64
	lastErr error
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// NewSpanExporter starts an exporter of decision spans to endpoint (the
// full URL, with /v1/traces), for the service named service.
func NewSpanExporter(endpoint, service string) *SpanExporter {
	e := &SpanExporter{endpoint: endpoint, service: service, client: &http.Client{Timeout: 10 * time.Second},
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go e.loop()
	return e
}

// Dropped returns the number of spans dropped and the last export error.
func (e *SpanExporter) Dropped() (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dropped, e.lastErr
}

// Close exports the spans queued and stops the exporter.
func (e *SpanExporter) Close() error {
	close(e.stop)
	<-e.done
	_, err := e.Dropped()
	return err
}

func (e *SpanExporter) loop() {
	defer close(e.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			for e.flush() {
			}
			return
		case <-e.wake:
		case <-tick.C:
		}
		for e.flush() {
		}
	}
}

// flush exports one batch; it reports whether there may be more.
func (e *SpanExporter) flush() bool {
	e.mu.Lock()
	n := min(len(e.queue), spanBatch)
	batch := e.queue[:n:n]
	e.queue = e.queue[n:]
	e.mu.Unlock()
	if n == 0 {
		return false
	}
	body, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource": map[string]any{"attributes": []any{strAttr("service.name", e.service)}},
		"scopeSpans": []any{map[string]any{
			"scope": map[string]any{"name": "github.com/wrapcheck/wrapcheck/guard"},
			"spans": batch,
		}},
	}}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", e.endpoint, bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		var resp *http.Response
		if resp, err = e.client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				err = fmt.Errorf("%s: %s", e.endpoint, resp.Status)
			}
		}
	}
	if err != nil {
		e.mu.Lock()
		e.dropped += int64(n)
		e.lastErr = err
		e.mu.Unlock()
	}
	return true
}

// add queues the span of one decision.
func (e *SpanExporter) add(req Request, d *Decision, retried bool, start time.Time, dur time.Duration) {
	sum := sha256.Sum256([]byte(req.Run))
	var sid [8]byte
	rand.Read(sid[:])
	attrs := []any{strAttr("gen_ai.conversation.id", req.Run), strAttr("wrapcheck.guard.op", opName(req.Op))}
	if a := eventAction(req.Event); a != "" {
		attrs = append(attrs, strAttr("wrapcheck.guard.action", a))
	}
	if req.ID != "" {
		attrs = append(attrs, strAttr("wrapcheck.guard.id", req.ID))
	}
	if d == nil {
		attrs = append(attrs, strAttr("wrapcheck.guard.decision", "allow"), map[string]any{"key": "wrapcheck.guard.retried", "value": map[string]any{"boolValue": true}})
	} else {
		attrs = append(attrs, strAttr("wrapcheck.guard.decision", d.Decision),
			map[string]any{"key": "wrapcheck.guard.step", "value": map[string]any{"intValue": strconv.Itoa(d.Step)}})
		for _, kv := range [][2]string{{"kind", d.Kind}, {"property", d.Property}, {"reason", d.Reason}, {"ended", d.Ended}} {
			if kv[1] != "" {
				attrs = append(attrs, strAttr("wrapcheck.guard."+kv[0], kv[1]))
			}
		}
	}
	sp := map[string]any{
		"traceId":           hex.EncodeToString(sum[:16]),
		"spanId":            hex.EncodeToString(sid[:]),
		"name":              "guard.decide",
		"kind":              2, // SPAN_KIND_SERVER
		"startTimeUnixNano": strconv.FormatInt(start.UnixNano(), 10),
		"endTimeUnixNano":   strconv.FormatInt(start.Add(dur).UnixNano(), 10),
		"attributes":        attrs,
	}
	if trace, parent, ok := parseTraceParent(req.TraceParent); ok {
		sp["traceId"], sp["parentSpanId"] = trace, parent
	}
	span, _ := json.Marshal(sp)
	e.mu.Lock()
	if len(e.queue) >= MaxQueuedSpans {
		e.dropped++
	} else {
		e.queue = append(e.queue, span)
	}
	full := len(e.queue) >= spanBatch
	e.mu.Unlock()
	if full {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}

// parseTraceParent returns the trace id and parent span id of a W3C
// traceparent (version 00: exactly 00-32HEX-16HEX-2HEX; a later version:
// at least that, then "-" and more), in lower-case hex, none of them all
// zeros; ok is false for any other.
func parseTraceParent(tp string) (trace, parent string, ok bool) {
	if len(tp) < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' || len(tp) > 55 && (tp[:2] == "00" || tp[55] != '-') {
		return "", "", false
	}
	if !lowerHex(tp[:2]) || tp[:2] == "ff" || !lowerHex(tp[3:35]) || !lowerHex(tp[36:52]) || !lowerHex(tp[53:55]) {
		return "", "", false
	}
	trace, parent = tp[3:35], tp[36:52]
	if strings.Trim(trace, "0") == "" || strings.Trim(parent, "0") == "" {
		return "", "", false
	}
	return trace, parent, true
}

// lowerHex reports whether s is lower-case hexadecimal digits.
func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func strAttr(k, v string) map[string]any {
	return map[string]any{"key": k, "value": map[string]any{"stringValue": v}}
}

// eventAction returns the action an event names, or "".
func eventAction(raw json.RawMessage) string {
	var ev struct {
		Action string `json:"action"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &ev) != nil {
		return ""
	}
	return ev.Action
}

package replay

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
)

// The limits on an OTLP recording: a hostile file gets an error, never
// unbounded memory.
const (
	maxRequestBytes = 64 << 20 // one ExportTraceServiceRequest
	maxSpans        = 200000   // in the whole recording
	maxValueDepth   = 32       // nesting of arrayValue / kvlistValue
)

// otlpRequest is an ExportTraceServiceRequest in the JSON encoding of OTLP
// (camelCase names, ids in hex, 64-bit integers as strings or numbers).
// Unknown members are ignored, as OTLP receivers do.
type otlpRequest struct {
	ResourceSpans *[]struct {
		Resource struct {
			Attributes []otlpKeyValue `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	TraceID      string         `json:"traceId"`
	SpanID       string         `json:"spanId"`
	ParentSpanID string         `json:"parentSpanId"`
	Name         string         `json:"name"`
	Start        otlpUint       `json:"startTimeUnixNano"`
	End          otlpUint       `json:"endTimeUnixNano"`
	Attributes   []otlpKeyValue `json:"attributes"`
	Events       []struct {
		Time       otlpUint       `json:"timeUnixNano"`
		Name       string         `json:"name"`
		Attributes []otlpKeyValue `json:"attributes"`
	} `json:"events"`
}

type otlpKeyValue struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

// otlpValue is an OTLP AnyValue: exactly one member is set.
type otlpValue struct {
	String *string      `json:"stringValue"`
	Bool   *bool        `json:"boolValue"`
	Int    *otlpInt     `json:"intValue"`
	Double *json.Number `json:"doubleValue"`
	Bytes  *string      `json:"bytesValue"`
	Array  *struct {
		Values []otlpValue `json:"values"`
	} `json:"arrayValue"`
	KVList *struct {
		Values []otlpKeyValue `json:"values"`
	} `json:"kvlistValue"`
}

// otlpUint is a uint64 written as a JSON string (as OTLP requires) or number.
type otlpUint uint64

func (u *otlpUint) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		*u = 0
		return nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want an unsigned 64-bit integer, found %s", b)
	}
	*u = otlpUint(v)
	return nil
}

// otlpInt is an int64 written as a JSON string or number.
type otlpInt int64

func (n *otlpInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a 64-bit integer, found %s", b)
	}
	*n = otlpInt(v)
	return nil
}

// span is a span of a recording, as the mapping reads it.
type span struct {
	traceID, id, parent string
	name                string
	start               uint64
	attrs               map[string]any // span attributes, then resource attributes under "resource." too
	resource            map[string]any
	events              []event
	line                int // line of the file its request starts on
	order               int // position in the file
	depth               int // parent/child depth in its trace, set by order
}

type event struct {
	time  uint64
	name  string
	attrs map[string]any
}

// IsOTLP reports whether data (the start of a recording) is OTLP JSON: a
// JSON object whose first member is resourceSpans (or resource_spans).
func IsOTLP(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	t, err := dec.Token()
	return err == nil && (t == "resourceSpans" || t == "resource_spans")
}

var errTooBig = errors.New("an ExportTraceServiceRequest larger than 64 MiB")

// readSpans reads an OTLP JSON recording (named name in errors): one
// ExportTraceServiceRequest a line, or one spread over several lines.
func readSpans(name string, r io.Reader) ([]*span, error) {
	var spans []*span
	err := eachRequest(name, r, func() int { return len(spans) }, func(got []*span) error {
		for _, sp := range got {
			sp.order = len(spans)
			spans = append(spans, sp)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return spans, nil
}

// eachRequest reads the requests of an OTLP JSON recording one at a time
// and calls got with the spans of each; held() is the number of spans
// held so far, which with the request's may not pass maxSpans.
func eachRequest(name string, r io.Reader, held func() int, got func([]*span) error) error {
	br := bufio.NewReader(r)
	var buf []byte
	var sc valueScanner
	first := 0 // line the value in buf starts on
	for n := 1; ; n++ {
		text, err := readLine(br, maxRequestBytes-len(buf))
		if err == errTooBig {
			return fmt.Errorf("%s:%d: %v", name, max(first, n), errTooBig)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if len(buf) == 0 && len(bytes.TrimSpace(text)) == 0 {
			if err == io.EOF {
				break
			}
			continue
		}
		if len(buf) == 0 {
			first = n
		}
		buf = append(buf, text...)
		buf = append(buf, '\n')
		if !sc.feed(text) && err != io.EOF {
			continue // the value goes on
		}
		spans, rerr := decodeRequest(name, first, buf, held())
		if rerr != nil {
			return rerr
		}
		if gerr := got(spans); gerr != nil {
			return gerr
		}
		buf, sc = buf[:0], valueScanner{}
		if cap(buf) > 1<<20 {
			buf = nil // do not keep a large request's buffer
		}
		if err == io.EOF {
			break
		}
	}
	return nil
}

// readLine reads one line without its newline, failing past limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(out)+len(chunk) > limit {
			return nil, errTooBig
		}
		out = append(out, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		out = bytes.TrimSuffix(out, []byte("\n"))
		return bytes.TrimSuffix(out, []byte("\r")), err
	}
}

// valueScanner follows the nesting of the JSON text fed to it, to tell
// when a value spread over several lines is complete.
type valueScanner struct {
	depth           int
	started         bool
	inString, quote bool
}

// feed scans a line; it reports whether a top-level value has ended.
func (s *valueScanner) feed(line []byte) bool {
	for _, c := range line {
		switch {
		case s.inString:
			if s.quote {
				s.quote = false
			} else if c == '\\' {
				s.quote = true
			} else if c == '"' {
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
			s.started = true
		case c == '}' || c == ']':
			s.depth--
		}
	}
	return !s.started || s.depth <= 0
}

func decodeRequest(name string, line int, data []byte, have int) ([]*span, error) {
	var req otlpRequest
	if err := json.Unmarshal(data, &req); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return nil, fmt.Errorf("%s:%d: %s: want %s, found a JSON %s", name, line, otlpPath(ute), ute.Type, ute.Value)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset >= int64(len(bytes.TrimRight(data, " \t\r\n"))) {
			return nil, fmt.Errorf("%s:%d: not OTLP JSON: %v (the request that starts here does not end)", name, line, err)
		}
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: not OTLP JSON: %v", name, line+bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")), err)
		}
		return nil, fmt.Errorf("%s:%d: not OTLP JSON: %v", name, line, err)
	}
	if req.ResourceSpans == nil {
		return nil, fmt.Errorf("%s:%d: not an ExportTraceServiceRequest: no resourceSpans", name, line)
	}
	var spans []*span
	for _, rs := range *req.ResourceSpans {
		res, err := attrMap(rs.Resource.Attributes)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: resource: %v", name, line, err)
		}
		for _, ss := range rs.ScopeSpans {
			for i := range ss.Spans {
				if have+len(spans) == maxSpans {
					return nil, fmt.Errorf("%s:%d: more than %d spans: split the recording", name, line, maxSpans)
				}
				sp, err := convertSpan(&ss.Spans[i], res)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: span %q (%s): %v", name, line, ss.Spans[i].SpanID, report.Escape(clip(ss.Spans[i].Name, 80)), err)
				}
				sp.line = line
				spans = append(spans, sp)
			}
		}
	}
	return spans, nil
}

func otlpPath(e *json.UnmarshalTypeError) string {
	if e.Field == "" {
		return "the request"
	}
	return e.Field
}

func convertSpan(s *otlpSpan, res map[string]any) (*span, error) {
	for _, id := range []struct{ what, v string }{{"traceId", s.TraceID}, {"spanId", s.SpanID}, {"parentSpanId", s.ParentSpanID}} {
		if _, err := hex.DecodeString(id.v); err != nil {
			return nil, fmt.Errorf("%s %q is not hex", id.what, id.v)
		}
	}
	if s.SpanID == "" {
		return nil, fmt.Errorf("no spanId")
	}
	attrs, err := attrMap(s.Attributes)
	if err != nil {
		return nil, err
	}
	sp := &span{traceID: strings.ToLower(s.TraceID), id: strings.ToLower(s.SpanID), parent: strings.ToLower(s.ParentSpanID),
		name: s.Name, start: uint64(s.Start), attrs: attrs, resource: res}
	for _, e := range s.Events {
		ea, err := attrMap(e.Attributes)
		if err != nil {
			return nil, fmt.Errorf("event %s: %v", report.Escape(clip(e.Name, 80)), err)
		}
		sp.events = append(sp.events, event{time: uint64(e.Time), name: e.Name, attrs: ea})
	}
	return sp, nil
}

func attrMap(kvs []otlpKeyValue) (map[string]any, error) {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v, err := kv.Value.toGo(0)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %v", report.Escape(clip(kv.Key, 80)), err)
		}
		out[kv.Key] = v
	}
	return out, nil
}

// toGo turns an AnyValue into the Go value of its JSON: string, bool,
// json.Number, []any, map[string]any, or nil for an empty value.
func (v *otlpValue) toGo(depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("values nested more than %d deep", maxValueDepth)
	}
	switch {
	case v.String != nil:
		return *v.String, nil
	case v.Bool != nil:
		return *v.Bool, nil
	case v.Int != nil:
		return json.Number(strconv.FormatInt(int64(*v.Int), 10)), nil
	case v.Double != nil:
		return *v.Double, nil
	case v.Bytes != nil:
		if _, err := base64.StdEncoding.DecodeString(*v.Bytes); err != nil {
			return nil, fmt.Errorf("bytesValue is not base64")
		}
		return *v.Bytes, nil
	case v.Array != nil:
		out := make([]any, 0, len(v.Array.Values))
		for i := range v.Array.Values {
			x, err := v.Array.Values[i].toGo(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case v.KVList != nil:
		out := make(map[string]any, len(v.KVList.Values))
		for i := range v.KVList.Values {
			x, err := v.KVList.Values[i].Value.toGo(depth + 1)
			if err != nil {
				return nil, err
			}
			out[v.KVList.Values[i].Key] = x
		}
		return out, nil
	}
	return nil, nil
}

// SniffOTLP reports whether the recording br starts is OTLP JSON (see
// [IsOTLP]), peeking no further than the first member's name, so that a
// stream is not held up waiting for more input than that.
func SniffOTLP(br *bufio.Reader) bool {
	state := 0 // 0: before {, 1: before the key, 2: in the key
	start := 0
	for n := 1; n <= 4096; n++ {
		b, err := br.Peek(n)
		if len(b) < n {
			return false
		}
		c := b[n-1]
		switch state {
		case 0, 1:
			switch {
			case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			case state == 0 && c == '{':
				state = 1
			case state == 1 && c == '"':
				state, start = 2, n
			default:
				return false
			}
		case 2:
			if c == '"' {
				return IsOTLP(b)
			}
			if n-start > 32 {
				return false
			}
		}
		if err != nil {
			return false
		}
	}
	return false
}

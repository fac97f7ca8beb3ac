package guard

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/loopback"
)

// ServeLines answers the requests read from r, one JSON object a line
// (blank lines skipped), with one decision a line on w, in the order of
// the requests, until r ends: the protocol over standard input and
// output. A line longer than [MaxRequestBytes] is answered with a block
// and skipped. The error is an I/O error of r or w.
func (g *Guard) ServeLines(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []byte // the answer, its buffer reused
	for {
		line, tooLong, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch {
		case tooLong:
			out = appendDecision(out[:0], &Decision{Decision: "block", Kind: "invalid", Reason: fmt.Sprintf("request longer than %d bytes", MaxRequestBytes)})
		default:
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			out = g.AppendHandleLine(out[:0], line)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
}

// readLine reads one line without its newline; past MaxRequestBytes it
// reads on to the line's end and reports tooLong.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxRequestBytes+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(buf) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			return buf, tooLong, nil
		case err != nil:
			return nil, false, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), tooLong, nil
	}
}

// Gate is what the guard's HTTP server admits: its own Host and Origin
// (Port; "" on a Unix socket) and the per-launch Token. [Listen] returns
// one with a fresh token.
type Gate = loopback.Gate

// Handler is the guard's HTTP interface: POST /v1/decide with a request
// (application/json) answers its decision (200, application/json, one
// line), GET /metrics the figures of [Guard.WriteMetrics] (with the
// token), GET /healthz answers "ok". Every request passes gate (the
// server's Host and Origin; the token, which /healthz does not need);
// a body longer than [MaxRequestBytes] is refused (413).
func (g *Guard) Handler(gate Gate) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		if !gate.HasToken(r) {
			httpError(w, http.StatusUnauthorized, "no valid token: send the token wrapcheck guard made at launch as Authorization: Bearer TOKEN")
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		g.WriteMetrics(w)
	})
	mux.HandleFunc("POST /v1/decide", func(w http.ResponseWriter, r *http.Request) {
		if !gate.HasToken(r) {
			httpError(w, http.StatusUnauthorized, "no valid token: send the token wrapcheck guard made at launch in the "+loopback.TokenHeader+" header")
			return
		}
		if code, why := loopback.CheckBody(r); code != 0 {
			httpError(w, code, why)
			return
		}
		buf, err := readBody(w, r)
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request longer than %d bytes", MaxRequestBytes))
				return
			}
			httpError(w, http.StatusBadRequest, "reading the request: "+err.Error())
			return
		}
		out := getBody()
		*out = g.AppendHandleLine((*out)[:0], *buf)
		putBody(buf)
		w.Header()["Content-Type"] = jsonType
		w.Write(*out)
		putBody(out)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = nosniff
		h["Cache-Control"] = noStore
		if code, why := gate.CheckSite(r); code != 0 {
			httpError(w, code, why)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// The values of the headers of every answer, shared (a header's value
// is never changed in place: Set and Add replace or copy it), so that
// setting them allocates nothing.
var (
	jsonType = []string{"application/json"}
	nosniff  = []string{"nosniff"}
	noStore  = []string{"no-store"}
)

// bodies holds the buffers of requests' bodies and of their answers
// between requests. The guard keeps nothing of a request's bytes once
// AppendHandleLine returns (what it keeps of its strings it copies,
// replay's Decoder parses the event into values), so a buffer is reused
// by the next request.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooled is the largest buffer kept for reuse: a rare long request
// does not pin its memory.
const maxPooled = 64 << 10

// readBody reads r's body, no longer than MaxRequestBytes (a longer one
// is a *http.MaxBytesError), into a buffer from bodies, to be given back
// by putBody. A body of declared length is read in one piece: its length
// checked before any byte is read, its bytes into a buffer of that size.
func readBody(w http.ResponseWriter, r *http.Request) (*[]byte, error) {
	n := r.ContentLength
	if n < 0 { // chunked: read to its end, through the limit
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		return &b, err
	}
	if n > MaxRequestBytes {
		return nil, &http.MaxBytesError{Limit: MaxRequestBytes}
	}
	buf := getBody()
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	*buf = (*buf)[:n]
	if _, err := io.ReadFull(r.Body, *buf); err != nil {
		putBody(buf)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// getBody takes a buffer from bodies.
func getBody() *[]byte { return bodies.Get().(*[]byte) }

// putBody gives buf back to bodies.
func putBody(buf *[]byte) {
	if cap(*buf) <= maxPooled {
		bodies.Put(buf)
	}
}

// httpError answers a refusal: a block decision, so that a client reads
// every refusal as one.
func httpError(w http.ResponseWriter, code int, why string) {
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(code)
	w.Write(encode(&Decision{Decision: "block", Kind: "refused", Reason: "wrapcheck guard: " + why}))
}

// Listen listens on addr for [Guard.Serve]: a loopback address
// (127.0.0.1:PORT, [::1]:PORT or localhost:PORT; port 0 picks one) or
// unix:PATH (the socket then readable and writable by its owner alone).
// It returns the listener, the Gate that admits requests to it, with a
// fresh random token, and the address to print (http://HOST:PORT or
// unix:PATH). Any other address is an error: the guard serves only its
// own machine.
func Listen(addr string) (net.Listener, Gate, string, error) {
	gate := Gate{Token: rand.Text()}
	if sock, ok := strings.CutPrefix(addr, "unix:"); ok {
		if sock == "" {
			return nil, gate, "", errors.New("unix:PATH: no path")
		}
		l, err := net.Listen("unix", sock)
		if err != nil {
			return nil, gate, "", err
		}
		if err := os.Chmod(sock, 0o600); err != nil {
			l.Close()
			return nil, gate, "", err
		}
		return l, gate, "unix:" + sock, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, gate, "", err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, gate, "", errors.New("not a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT) nor unix:PATH")
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, gate, "", err
	}
	_, gate.Port, _ = net.SplitHostPort(l.Addr().String())
	return l, gate, "http://" + l.Addr().String(), nil
}

// Serve serves [Guard.Handler] on l until ctx is done, then shuts the
// server down, letting the requests in flight finish (for up to 5 s).
// Headers are limited to 64 KiB, read within 10 s.
func (g *Guard) Serve(ctx context.Context, l net.Listener, gate Gate) error {
	srv := &http.Server{Handler: g.Handler(gate), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		MaxHeaderBytes: 64 << 10}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

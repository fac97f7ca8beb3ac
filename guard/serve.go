package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/wrapcheck/wrapcheck/internal/loopback"
)

// ServeLines answers the requests read from r, one JSON object a line
// (blank lines skipped), with one decision a line on w, in the order of
// the requests, until r ends: the protocol over standard input and
// output. A line longer than [MaxRequestBytes] is answered with a block
// and skipped. The error is an I/O error of r or w.
func (g *Guard) ServeLines(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var out []byte
		switch {
		case tooLong:
			out = encode(&Decision{Decision: "block", Kind: "invalid", Reason: fmt.Sprintf("request longer than %d bytes", MaxRequestBytes)})
		default:
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			out = g.HandleLine(line)
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

// Handler is the guard's HTTP interface: POST /v1/decide with a request
// (application/json) answers its decision (200, application/json, one
// line), GET /metrics the figures of [Guard.WriteMetrics] (with the
// token), GET /healthz answers "ok". Every request passes gate (the
// server's Host and Origin; the token, which /healthz does not need);
// a body longer than [MaxRequestBytes] is refused (413).
func (g *Guard) Handler(gate loopback.Gate) http.Handler {
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
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request longer than %d bytes", MaxRequestBytes))
				return
			}
			httpError(w, http.StatusBadRequest, "reading the request: "+err.Error())
			return
		}
		out := g.HandleLine(body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		if code, why := gate.CheckSite(r); code != 0 {
			httpError(w, code, why)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// httpError answers a refusal: a block decision, so that a client reads
// every refusal as one.
func httpError(w http.ResponseWriter, code int, why string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(encode(&Decision{Decision: "block", Kind: "refused", Reason: "wrapcheck guard: " + why}))
}

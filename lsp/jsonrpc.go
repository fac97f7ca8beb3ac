package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds the body of one JSON-RPC message. A 10 MB spec sent
// as JSON text stays well below it; anything larger is refused without
// being read into memory.
const maxMessage = 64 << 20

// JSON-RPC error codes (JSON-RPC 2.0 and LSP 3.17).
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeServerNotInit    = -32002
	codeRequestCancelled = -32800
	codeContentModified  = -32801
)

// message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID and Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// isRequest reports whether m expects a response.
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// rpcError is the error object of a JSON-RPC response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// errFraming is wrapped by the reader's errors when the byte stream is no
// longer a sequence of Content-Length framed messages.
var errFraming = errors.New("bad message framing")

// reader reads Content-Length framed messages (the LSP base protocol).
type reader struct {
	r *bufio.Reader
}

func newReader(r io.Reader) *reader { return &reader{r: bufio.NewReaderSize(r, 64<<10)} }

// read returns the next message body. io.EOF means the stream ended
// cleanly between messages.
func (r *reader) read() ([]byte, error) {
	length := -1
	first := true
	for {
		line, err := r.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && first && line == "" {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: reading header: %v", errFraming, err)
		}
		first = false
		if len(line) > 4096 {
			return nil, fmt.Errorf("%w: header line too long", errFraming)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header %q has no colon", errFraming, line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: bad Content-Length %q", errFraming, value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", errFraming)
	}
	if length > maxMessage {
		// Skip the body so that the stream stays in sync.
		if _, err := io.CopyN(io.Discard, r.r, int64(length)); err != nil {
			return nil, fmt.Errorf("%w: reading body: %v", errFraming, err)
		}
		return nil, errTooLarge
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.r, body); err != nil {
		return nil, fmt.Errorf("%w: reading body: %v", errFraming, err)
	}
	return body, nil
}

// errTooLarge is returned by read for a message over maxMessage bytes;
// the stream is still usable.
var errTooLarge = errors.New("message too large")

// writer writes framed messages; it is safe for concurrent use.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *writer) write(m *message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.w.Write(b.Bytes())
	return err
}

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/internal/loopback"
	"github.com/wrapcheck/wrapcheck/web/engine"
	"github.com/wrapcheck/wrapcheck/web/page"
)

// uiRequestLimit bounds the body of one request to the ui server.
const uiRequestLimit = 2 << 20

func newUICmd() *cobra.Command {
	var (
		dir    string
		port   int
		noOpen bool
	)
	cmd := &cobra.Command{
		Use:   "ui SPEC",
		Short: "serve the playground on 127.0.0.1 with the native checker behind it",
		Long: `ui serves the browser playground (the editor, the trace table, the
explorer) on 127.0.0.1, opened on SPEC, with this program's checker behind
it instead of the WebAssembly one: for models too big for the browser. It
opens the browser when it can and serves until interrupted.

The address it prints carries a token made afresh at each launch
(http://127.0.0.1:PORT/?token=...): open that address; the first visit
sets a cookie for the rest. Requests without the token, with a Host other
than 127.0.0.1:PORT or localhost:PORT, from another origin, or POSTed as
anything but application/json are refused (403, 415), so that no other
web site, nor one that rebinds its DNS name to 127.0.0.1, can read the
spec or run a check. A check stops when its page goes away.

The page is built into the program (package web/page): nothing else is
needed. --dir serves a page built with web/build.mjs instead (web/dist,
while the page is being worked on).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if dir != "" {
				if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--dir %s: no index.html: build the page with `node web/build.mjs`, or leave --dir out for the built-in page", displayPath(dir))}
				}
			}
			if port < 0 || port > 65535 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--port %d: want 0 to 65535", port)}
			}
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			ui := newUIServer(dir, args[0], strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
			fmt.Fprintf(cmd.OutOrStdout(), "serving %s on %s (interrupt to stop)\n", displayPath(args[0]), ui.url())
			if !noOpen {
				openBrowser(ui.url())
			}
			srv := &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				_ = srv.Close()
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "serve the page built in this directory (web/dist) instead of the built-in one")
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "do not open the browser")
	return cmd
}

// uiServer is the ui command's HTTP server: the page (built in dir, or
// the built-in one of package page when dir is ""), a
// config.js that points it at the native checker, and the API: GET
// api/spec (the spec at path, read afresh), GET api/examples, POST api/run
// (an engine.Request). Every request passes guard first.
type uiServer struct {
	dir, path string
	// token is the per-launch secret of the address the command prints.
	token string
	// port is the port it listens on: the Host and Origin it accepts and
	// the name of its cookie carry it.
	port string
	// progress and ran, when not nil, hear of each API run's progress
	// and of its end (for the tests).
	progress func(engine.Progress)
	ran      func(*engine.Response)
	mux      *http.ServeMux
}

// newUIServer returns the server of the page in dir and the spec at specPath,
// for a listener on port, with a fresh random token.
func newUIServer(dir, specPath, port string) *uiServer {
	s := &uiServer{dir: dir, path: specPath, port: port, token: rand.Text()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", s.serveFile)
	mux.HandleFunc("GET /config.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, "globalThis.WRAPCHECK = { native: true };\n")
	})
	mux.HandleFunc("GET /api/spec", func(w http.ResponseWriter, _ *http.Request) {
		src, err := os.ReadFile(s.path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]string{"name": slashPath(s.path), "source": string(src)})
	})
	mux.HandleFunc("GET /api/examples", func(w http.ResponseWriter, _ *http.Request) {
		ex, err := engine.Examples()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, ex)
	})
	mux.HandleFunc("POST /api/run", s.run)
	s.mux = mux
	return s
}

// url returns the address to open: the server's, with the token.
func (s *uiServer) url() string {
	return "http://127.0.0.1:" + s.port + "/?token=" + s.token
}

// cookie is the name of the cookie that carries the token: one per port,
// since browsers share cookies between the ports of a host.
func (s *uiServer) cookie() string { return "wrapcheck-ui-" + s.port }

func (s *uiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if code, why := s.guard(w, r); code != 0 {
		http.Error(w, "wrapcheck ui: "+why, code)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// guard refuses what a page of another site, or one reached by DNS
// rebinding, could send: it returns the status and the reason of a
// refusal, 0 for a request to serve. A request is served when its Host is
// the server's own loopback address (127.0.0.1, localhost or [::1] with
// its port), its Origin, if any, is the server's own, it carries the
// token (in the query, the X-Wrapcheck-Token header, or the cookie that a
// visit with the token sets, honoured only on same-origin requests), and,
// for a POST, its body is declared application/json (a type no
// cross-origin form or simple request may send). Tokens are compared in
// constant time.
func (s *uiServer) guard(w http.ResponseWriter, r *http.Request) (int, string) {
	gate := s.gate()
	if code, why := gate.CheckSite(r); code != 0 {
		return code, why
	}
	switch {
	case gate.IsToken(r.URL.Query().Get("token")) || gate.HasToken(r):
		if r.Method == http.MethodGet {
			http.SetCookie(w, &http.Cookie{Name: s.cookie(), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
	case s.hasCookie(r):
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			return http.StatusForbidden, "request from another site"
		}
	default:
		return http.StatusForbidden, "no valid token: open the address that wrapcheck ui printed (with ?token=)"
	}
	return loopback.CheckBody(r)
}

// gate is what the server admits (package loopback).
func (s *uiServer) gate() loopback.Gate {
	return loopback.Gate{Token: s.token, Port: s.port}
}

// hasCookie reports whether r carries the cookie with the token.
func (s *uiServer) hasCookie(r *http.Request) bool {
	gate := s.gate()
	for _, c := range r.CookiesNamed(s.cookie()) {
		if gate.IsToken(c.Value) {
			return true
		}
	}
	return false
}

// run answers POST api/run. The work runs under the request's context:
// a client that goes away (a closed tab, a cancelled fetch) stops it.
func (s *uiServer) run(w http.ResponseWriter, r *http.Request) {
	// read the body to its end, so that the server watches the
	// connection (and cancels r.Context() when it closes) from now on
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, uiRequestLimit))
	var req engine.Request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp := engine.Run(r.Context(), req, s.progress)
	if s.ran != nil {
		s.ran(resp)
	}
	writeJSON(w, resp)
}

// serveFile serves a file of the page. A path that leaves dir, through
// ".." or a symbolic link, is not found (os.Root confines every lookup);
// so is a directory (there is no listing) and anything but a regular
// file (a FIFO would block).
func (s *uiServer) serveFile(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = "index.html"
	}
	var fsys fs.FS
	if s.dir == "" {
		p, err := page.FS()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fsys = p
	} else {
		root, err := os.OpenRoot(s.dir)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer root.Close()
		fsys = root.FS()
	}
	if fi, err := fs.Stat(fsys, name); err != nil || !fi.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	f, err := fsys.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(w, r, name, fi.ModTime(), rs)
		return
	}
	// a file of the built-in page: read whole (the largest is under 1 MB)
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, name, fi.ModTime(), bytes.NewReader(b))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// openBrowser opens url in the desktop's browser when there is one; it
// does nothing when no opener is installed.
func openBrowser(url string) {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	if _, err := exec.LookPath(name); err != nil {
		return
	}
	c := exec.Command(name, append(args, url)...)
	if c.Start() == nil {
		go func() { _ = c.Wait() }()
	}
}

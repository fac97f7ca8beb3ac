package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/web/engine"
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

The page is the one web/build.mjs builds into web/dist (found from the
working directory upwards, or given with --dir).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if dir == "" {
				dir = findDist()
			}
			if _, err := os.Stat(filepath.Join(dir, "index.html")); dir == "" || err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("the playground is not built: run `npm ci --prefix web && node web/build.mjs`, or give --dir")}
			}
			if port < 0 || port > 65535 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--port %d: want 0 to 65535", port)}
			}
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			url := "http://" + ln.Addr().String() + "/"
			fmt.Fprintf(cmd.OutOrStdout(), "serving %s on %s (interrupt to stop)\n", displayPath(args[0]), url)
			if !noOpen {
				openBrowser(url)
			}
			srv := &http.Server{Handler: uiHandler(dir, args[0]), ReadHeaderTimeout: 10 * time.Second}
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
	cmd.Flags().StringVar(&dir, "dir", "", "the built playground (default: web/dist, from the working directory upwards)")
	cmd.Flags().IntVar(&port, "port", 0, "port on 127.0.0.1 (0: a free one)")
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "do not open the browser")
	return cmd
}

// findDist returns web/dist in the working directory or the nearest
// directory above it that has one, "" when none has.
func findDist() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(d, "web", "dist")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// uiHandler serves the page in dir, a config.js that points it at the
// native checker, and the API: GET api/spec (the spec at path, read
// afresh), GET api/examples, POST api/run (an engine.Request).
func uiHandler(dir, path string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServer(http.Dir(dir)))
	mux.HandleFunc("GET /config.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, "globalThis.WRAPCHECK = { native: true };\n")
	})
	mux.HandleFunc("GET /api/spec", func(w http.ResponseWriter, _ *http.Request) {
		src, err := os.ReadFile(path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]string{"name": slashPath(path), "source": string(src)})
	})
	mux.HandleFunc("GET /api/examples", func(w http.ResponseWriter, _ *http.Request) {
		ex, err := engine.Examples()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, ex)
	})
	mux.HandleFunc("POST /api/run", func(w http.ResponseWriter, r *http.Request) {
		var req engine.Request
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, uiRequestLimit)).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, engine.Run(r.Context(), req, nil))
	})
	return mux
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

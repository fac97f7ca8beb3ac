package lsp

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestMain lets the test binary act as the server for editors driven by
// the tests: with WRAPCHECK_LSP_SERVE=1 it serves stdio and exits.
func TestMain(m *testing.M) {
	if os.Getenv("WRAPCHECK_LSP_SERVE") == "1" {
		err := NewServer(Options{}).Run(context.Background(), os.Stdin, os.Stdout)
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testenv.Run(m))
}

package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/lsp"
)

func newLSPCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "lsp",
		Short: "run the language server (LSP 3.17 over stdio)",
		Long: `lsp runs a language server for .wrap files on stdin and stdout, for
editors: diagnostics as you type (syntax, type and blindness errors, vet
warnings), hover, go to definition, references, rename, document and
workspace symbols, completion, signature help, semantic tokens, folding,
quick fixes, formatting, and a "check" code lens on every invariant and
property. See editors/README.md for the
setup of VS Code, Neovim, Helix and Zed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err := lsp.NewServer(lsp.Options{Version: version}).Run(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
			if errors.Is(err, lsp.ErrExitWithoutShutdown) {
				return &exitError{code: 1}
			}
			if err != nil && ctx.Err() == nil {
				return &exitError{code: exitUsage, err: err}
			}
			return nil
		},
	}
}

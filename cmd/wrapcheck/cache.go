package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/internal/native"
)

// The cache commands: wrapcheck cache list and clean, over package
// native's cache of check --compile's binaries.

// formatBytes writes n in binary units.
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

func newCacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "list or clean the cache of check --compile's binaries",
		Long: `check --compile builds one binary (about 25 MB) for each set of specs and
version of wrapcheck, into the cache directory: $` + native.DirEnv + `/native, or
by default the user's cache directory's wrapcheck/native (~/.cache/wrapcheck/native
on Linux, ~/Library/Caches/wrapcheck/native on macOS). A run that builds a
binary, and otherwise one a day, removes the binaries not used for 30 days, then
the least recently used while the cache holds more than 1 GiB. A binary that a
process runs, or builds, is never removed. A binary runs only when its SHA-256
is the one its build recorded (any other is built again), and a cache
directory, entry or binary that another user owns or can write is refused.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCacheListCmd(), newCacheCleanCmd())
	return cmd
}

func newCacheListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "print the cache directory and its entries, least recently used first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, entries, err := scanCache(cmd)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%s\n", c.Root)
			var total int64
			for _, e := range entries {
				total += e.Bytes
				fmt.Fprintf(w, "%s  %10s  %-10s  %s\n", e.Used.UTC().Format("2006-01-02 15:04 UTC"), formatBytes(e.Bytes), entryState(e), e.Rel)
			}
			fmt.Fprintf(w, "%d entries, %s (limits: %s, %d days unused)\n", len(entries), formatBytes(total), formatBytes(native.DefaultMaxBytes), int(native.DefaultMaxAge/(24*time.Hour)))
			return nil
		},
	}
}

// entryState names the state of e.
func entryState(e native.Entry) string {
	switch {
	case e.InUse && e.Ready:
		return "in use"
	case e.InUse:
		return "building"
	case e.Ready:
		return "ready"
	}
	return "incomplete"
}

func newCacheCleanCmd() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "remove the cached binaries that no process uses",
		Long: `clean removes every entry of the cache that no process uses (with
--older-than, only those not used for that long), and prints what it removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if olderThan < 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--older-than %v: want a duration of 0 or more", olderThan)}
			}
			c, entries, err := scanCache(cmd)
			if err != nil {
				return err
			}
			limits := native.Limits{All: true}
			if olderThan > 0 {
				limits = native.Limits{MaxAge: olderThan}
			}
			removed, err := c.Evict(limits)
			w := cmd.OutOrStdout()
			var bytes int64
			for _, e := range removed {
				bytes += e.Bytes
				fmt.Fprintf(w, "removed %s (%s)\n", e.Rel, formatBytes(e.Bytes))
			}
			inUse := 0
			for _, e := range entries {
				if e.InUse {
					inUse++
				}
			}
			fmt.Fprintf(w, "removed %d entries, %s; %d in use kept\n", len(removed), formatBytes(bytes), inUse)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("cache clean: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "remove only the entries not used for this long, e.g. 168h (0: every entry not in use)")
	return cmd
}

// scanCache opens the cache and scans it, warning on stderr about what is
// not an entry.
func scanCache(cmd *cobra.Command) (*native.Cache, []native.Entry, error) {
	c, err := native.Open()
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("cache: %w", err)}
	}
	entries, stray, err := c.Scan()
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("cache: %w", err)}
	}
	warnStray(cmd.ErrOrStderr(), stray)
	return c, entries, nil
}

// warnStray warns about each path of stray.
func warnStray(w io.Writer, stray []string) {
	for _, p := range stray {
		fmt.Fprintf(w, "wrapcheck: cache: %s: not a cache entry (a file where a directory should be), left as it is\n", p)
	}
}

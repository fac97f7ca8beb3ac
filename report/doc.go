// Package report renders a [checker.Result] for people (text) and for
// programs (JSON, the versioned output contract). Renderers only: every
// format prints the same Result, never a second code path through the
// engine.
package report

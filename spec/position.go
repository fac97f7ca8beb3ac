package spec

import "github.com/wrapcheck/wrapcheck/spec/syntax"

// Position is a location in a source file; see [syntax.Position].
type Position = syntax.Position

// Error is one front-end error; see [syntax.Error].
type Error = syntax.Error

// ErrorList is a sorted list of front-end errors; see [syntax.ErrorList].
type ErrorList = syntax.ErrorList

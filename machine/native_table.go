//go:build !wrapcheck_native

package machine

// nativeBuilt reports whether this binary holds generated code: a build
// with the wrapcheck_native tag links a generated table instead of this file.
const nativeBuilt = false

// nativeLookup returns the generated code registered under key, or nil.
func nativeLookup(string) *nativeProg { return nil }

// Package syntax parses .wrap files into an abstract syntax tree ([Parse])
// and prints them back in one canonical layout ([Format]). The grammar is
// written with participle, the reference, which reports syntax errors; a
// valid file is parsed by a recursive-descent parser of the same language
// that never builds it. No participle type appears in this package's
// exported API.
package syntax

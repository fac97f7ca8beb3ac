// Package syntax parses .wrap files into an abstract syntax tree ([Parse])
// and prints them back in one canonical layout ([Format]). The grammar is
// written with participle; no participle type appears in this package's
// exported API.
package syntax

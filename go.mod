module github.com/wrapcheck/wrapcheck

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/dominikbraun/graph v0.23.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)

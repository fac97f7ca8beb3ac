package main

import "github.com/wrapcheck/wrapcheck/checker"
import "github.com/wrapcheck/wrapcheck/spec"

type sweepRun struct{}

func (s *sweepRun) record(m *spec.Model, res *checker.Result) {}

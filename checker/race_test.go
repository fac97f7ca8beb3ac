//go:build race

package checker

func init() { raceEnabled = true }

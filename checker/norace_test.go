package checker

// raceEnabled is set by race_test.go under -race, where the large peer
// models are skipped.
var raceEnabled = false

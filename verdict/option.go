package verdict

// OptionError is an option an engine refuses (verify's and simulate's
// Options). Option names it as the command line does ("workers",
// "max-states", "walks", "shard"...), Value is the value given and Msg
// says what is wrong with it.
type OptionError struct {
	Option, Value, Msg string
}

func (e *OptionError) Error() string { return e.Option + " " + e.Value + ": " + e.Msg }

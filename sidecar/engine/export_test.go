package engine

// Busy and Passed let the tests wait for Watch: no front end needs them.
var (
	Busy   = (*Engine).busy
	Passed = (*Engine).passed
)

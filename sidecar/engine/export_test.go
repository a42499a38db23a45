package engine

// Busy and Passed let the tests wait for Watch: no front end needs them.
// CompileOptions is what the ingest worker's compiler gets, its search
// for related pages among them.
var (
	Busy           = (*Engine).busy
	Passed         = (*Engine).passed
	CompileOptions = (*Engine).compileOptions
)

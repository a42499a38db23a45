package engine

import "time"

// Busy and Passed let the tests wait for Watch: no front end needs them.
// CompileOptions is what the ingest worker's compiler gets, its search
// for related pages among them.
var (
	Busy           = (*Engine).busy
	Passed         = (*Engine).passed
	CompileOptions = (*Engine).compileOptions
)

// SetFetchFloor sets how old a source's last fetch must be for a query
// to fetch it (onQueryFloor in the sidecar).
func SetFetchFloor(e *Engine, d time.Duration) {
	e.syncs.mu.Lock()
	defer e.syncs.mu.Unlock()
	e.syncs.floor = d
}

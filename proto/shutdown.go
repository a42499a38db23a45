package proto

// Shutdown message types.
const (
	TypeShutdown       = "shutdown"
	TypeShutdownResult = "shutdown.result"
)

// Shutdown asks the sidecar to stop as it does on SIGTERM: requests in
// flight finish, the index is closed, the lock released and sidecar.json
// removed. The plugin sends it to stop an engine it started, on every OS
// (Windows has no SIGTERM), and kills the process only if it is still
// there after a timeout. It has no fields.
type Shutdown struct{}

// ShutdownResult answers a shutdown before the sidecar stops; the
// connection then closes.
type ShutdownResult struct {
	// PID is the process that is stopping.
	PID int `json:"pid"`
}

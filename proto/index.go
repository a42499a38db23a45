package proto

// Index message types.
const (
	TypeIndexRebuild = "index.rebuild"
	TypeIndexResult  = "index.result"
)

// IndexRebuild asks the sidecar to rebuild the index from the vault. It has
// no fields.
type IndexRebuild struct{}

// IndexResult answers an index.rebuild as soon as the rebuild starts; its
// progress follows as index.progress events and its end as index.changed.
type IndexResult struct {
	// Started is false when a rebuild was already running; the request then
	// joins it instead of starting another.
	Started bool `json:"started"`
}

package proto

// Config message types: the settings a client may read and change while
// the sidecar runs. Changes take effect at once (a changed ignore list
// starts an index pass; a changed embedder rebuilds the vectors in the
// background) and are kept in the state folder's config.yaml, except the
// API key, which the sidecar holds in memory only.
const (
	TypeConfigGet    = "config.get"
	TypeConfigSet    = "config.set"
	TypeConfigResult = "config.result"
)

// ConfigGet asks for the current settings. It has no fields.
type ConfigGet struct{}

// ConfigSet changes settings. Every field is applied: send what config.get
// returned with the changes made.
type ConfigSet struct {
	Settings Settings `json:"settings"`
}

// ConfigResult answers config.get and config.set with the settings in
// force.
type ConfigResult struct {
	Settings Settings `json:"settings"`
	// Restart lists the settings that take effect only when the sidecar
	// restarts; empty when all are live.
	Restart []string `json:"restart"`
}

// Settings are the settings a client edits.
type Settings struct {
	// Ignore lists vault-relative folder or file prefixes never indexed.
	Ignore []string `json:"ignore"`
	// Folder is where the sidecar writes generated notes (sources,
	// concepts, answers, review); "Quire" by default.
	Folder string `json:"folder"`
	// Embedder is "builtin", "model" (Model.EmbedModel on the model
	// server) or "none" (keywords only).
	Embedder string `json:"embedder"`
	// Model is the language model used for answers and ingest.
	Model ModelSettings `json:"model"`
	// Rank is how results are ordered. Absent in config.set keeps it: a
	// client that does not know it must not reset it.
	Rank *RankSettings `json:"rank,omitempty"`
}

// RankSettings say how the pool of results is reordered before the cut.
type RankSettings struct {
	// Rerank is "off" (the fused order), "builtin" (Quire's learned
	// model) or "endpoint" (the reranker server below; the built-in
	// model answers when it fails or must not see private passages).
	Rerank string `json:"rerank"`
	// Reranker is the reranker server; an empty provider means none.
	Reranker RerankerSettings `json:"reranker"`
}

// RerankerSettings name a reranker server. Its API key, when it needs
// one, is read by the sidecar from its environment or config.yaml
// (rerank.api_key_env, rerank.api_key), never sent over the wire.
type RerankerSettings struct {
	// Provider is "tei", "cohere", "jina", "llamacpp" (any Cohere-style
	// /v1/rerank: llama.cpp's server, vLLM) or empty for none.
	Provider string `json:"provider"`
	// Endpoint is the server's base URL; empty for the provider's usual
	// one.
	Endpoint string `json:"endpoint"`
	// Model is the reranker model, required by cohere and jina.
	Model string `json:"model"`
	// Remote says whether the server sends what it is given off this
	// machine: "auto" (by its address), "true" or "false". A remote one
	// never sees a pool holding a private passage.
	Remote string `json:"remote"`
}

// ModelSettings name the model server.
type ModelSettings struct {
	// Provider is "ollama", "openai" (any OpenAI-compatible server),
	// "anthropic", or empty for none (extractive answers, unsummarised
	// sources).
	Provider string `json:"provider"`
	// Endpoint is the server's base URL; empty for the provider's usual one.
	Endpoint string `json:"endpoint"`
	// Model is the chat model's name.
	Model string `json:"model"`
	// EmbedModel is the embedding model's name, used when Embedder is
	// "model".
	EmbedModel string `json:"embedModel"`
	// Remote says whether the model server sends what it is given off this
	// machine, which keeps private notes from it: "auto" (remote unless
	// the endpoint is loopback), "true" (say so for a local proxy to a
	// hosted API) or "false". Empty in config.set keeps the setting.
	Remote string `json:"remote,omitempty"`
	// APIKey is sent by a client to set the key; the sidecar never sends it
	// back (empty in config.result) and never writes it to disk.
	APIKey string `json:"apiKey,omitempty"`
	// APIKeySet is true in config.result when the sidecar holds a key.
	APIKeySet bool `json:"apiKeySet"`
}

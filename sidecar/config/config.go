// Package config owns Quire's settings: the optional <state>/config.yaml,
// its defaults, and its validation. Every key has exactly one owner here.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// FileName is the config file's name inside the state folder.
const FileName = "config.yaml"

// Config is the whole configuration. Field tags are the YAML keys.
type Config struct {
	// Ignore lists vault-relative path prefixes that are never indexed
	// (e.g. "Templates/"), on top of dot folders and *.excalidraw.md.
	Ignore []string `yaml:"ignore"`
	// Private lists vault-relative folders whose notes are never sent to a
	// model that is not on this machine.
	Private []string `yaml:"private"`
	// MaxFileBytes is the size cap for a note; larger files are skipped
	// with a warning.
	MaxFileBytes int64 `yaml:"max_file_bytes"`
	// Folder is the vault folder Quire writes into (answers, sources,
	// concepts, review, raw originals); the user's own notes are never
	// written elsewhere.
	Folder string `yaml:"folder"`
	Chunk  Chunk  `yaml:"chunk"`
	Search Search `yaml:"search"`
	Dense  Dense  `yaml:"dense"`
	Ask    Ask    `yaml:"ask"`
	Ingest Ingest `yaml:"ingest"`
	MCP    MCP    `yaml:"mcp"`
	// Model is the language model ask answers with; no provider means
	// none, and ask answers with extracted sentences.
	Model llm.Config `yaml:"model"`
	// Rerank is an optional reranker endpoint; no provider means none.
	Rerank Rerank `yaml:"rerank"`
	// Sources are git repositories and folders indexed beside the vault.
	Sources Sources `yaml:"sources"`
}

// The providers Rerank.Provider accepts.
const (
	RerankTEI      = "tei"      // Hugging Face text-embeddings-inference: POST /rerank
	RerankCohere   = "cohere"   // api.cohere.com: POST /v2/rerank
	RerankJina     = "jina"     // api.jina.ai: POST /v1/rerank
	RerankLlamaCpp = "llamacpp" // llama.cpp's server --reranking, vLLM, any Cohere-style POST /v1/rerank
)

// Rerank is a reranker model server (rerank:) that scores query and
// passage pairs. Passages of private folders never reach one that is
// remote.
type Rerank struct {
	// Provider is "tei", "cohere", "jina" or "llamacpp" (any server with
	// a Cohere-style /v1/rerank, vLLM included); empty for none.
	Provider string `yaml:"provider"`
	// Endpoint is the server's base URL; empty means the provider's usual
	// one: http://127.0.0.1:8080 (tei, llamacpp), https://api.cohere.com,
	// https://api.jina.ai. A URL whose path ends in /rerank is used as is.
	Endpoint string `yaml:"endpoint"`
	// Model is the reranker model, required by cohere and jina (e.g.
	// "rerank-v3.5", "jina-reranker-v2-base-multilingual"); TEI serves one
	// model and ignores it.
	Model string `yaml:"model"`
	// APIKeyEnv names the environment variable that holds the key, sent
	// as "Authorization: Bearer"; empty means COHERE_API_KEY or
	// JINA_API_KEY by provider, and no key for tei and llamacpp.
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKey is the key itself; it wins over APIKeyEnv. Never log it.
	APIKey string `yaml:"api_key"`
	// Remote says whether the endpoint sends data off this machine, as
	// model.remote does: "auto" (or empty) by its host, "true", "false".
	Remote string `yaml:"remote"`
	// Timeout bounds one rerank call: it runs inside a search, so a few
	// seconds, after which the built-in order stands.
	Timeout time.Duration `yaml:"timeout"`
}

// Validate reports the first bad value, naming its YAML key (without the
// "rerank." the sidecar's config puts in front).
func (r Rerank) Validate() error {
	switch r.Provider {
	case "":
		return nil
	case RerankTEI, RerankCohere, RerankJina, RerankLlamaCpp:
	default:
		return fmt.Errorf("provider: %q is not one of tei, cohere, jina, llamacpp", r.Provider)
	}
	if (r.Provider == RerankCohere || r.Provider == RerankJina) && strings.TrimSpace(r.Model) == "" {
		return fmt.Errorf("model: required when provider is %s", r.Provider)
	}
	if r.Endpoint != "" {
		u, err := url.Parse(r.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fmt.Errorf("endpoint: %q is not an http(s) URL without credentials", r.Endpoint)
		}
	}
	if err := llm.ValidKeyEnv(r.APIKeyEnv); err != nil {
		return err
	}
	if r.Timeout <= 0 || r.Timeout > time.Minute {
		return fmt.Errorf("timeout: %s must be positive and at most 1m, e.g. 5s", r.Timeout)
	}
	return llm.ValidRemote(r.Remote)
}

// BaseURL is the endpoint without a trailing slash: Endpoint, or the
// provider's usual one.
func (r Rerank) BaseURL() string {
	if e := strings.TrimRight(r.Endpoint, "/"); e != "" {
		return e
	}
	switch r.Provider {
	case RerankCohere:
		return "https://api.cohere.com"
	case RerankJina:
		return "https://api.jina.ai"
	}
	return "http://127.0.0.1:8080"
}

// Local reports whether the endpoint is on this machine, by the rule of
// model.remote (llm.LocalEndpoint).
func (r Rerank) Local() bool { return llm.LocalEndpoint(r.Remote, r.BaseURL()) }

// KeyEnv is the environment variable the key is read from, "" for none.
func (r Rerank) KeyEnv() string {
	switch {
	case r.APIKeyEnv != "":
		return r.APIKeyEnv
	case r.Provider == RerankCohere:
		return "COHERE_API_KEY"
	case r.Provider == RerankJina:
		return "JINA_API_KEY"
	}
	return ""
}

// Key is the API key: APIKey, else the value of KeyEnv, else "".
func (r Rerank) Key() string {
	if r.APIKey != "" {
		return r.APIKey
	}
	if env := r.KeyEnv(); env != "" {
		return os.Getenv(env)
	}
	return ""
}

// Ask sets how questions are answered.
type Ask struct {
	// Rewrite has the model turn a question into search terms before
	// retrieval (one extra call). Off until `quire eval --rewrite` shows
	// it helps on your questions.
	Rewrite bool `yaml:"rewrite"`
}

// MCP sets what MCP clients are given.
type MCP struct {
	// Private is "withhold" (the default): MCP tools leave private notes
	// out of every result, since clients such as Claude put tool results
	// into a model that is not on this machine; or "include", for a
	// client whose model runs on this machine.
	Private string `yaml:"private"`
}

// Ingest sets how sources become notes.
type Ingest struct {
	// MaxCalls caps the model calls spent reading one source; a longer
	// source is read in part and its note says which share was not read.
	MaxCalls int `yaml:"max_calls"`
	// MaxBytes caps a fetched page or PDF.
	MaxBytes int64 `yaml:"max_bytes"`
	// Consolidate is how many concept pages one ingested source may have
	// the model summarise from their sections (checked, else a review
	// item); 0, the default, is off.
	Consolidate int `yaml:"consolidate"`
	// ConsolidateSources is how many sources a concept page needs before
	// it is summarised.
	ConsolidateSources int `yaml:"consolidate_sources"`
}

// Dense sets the embedder for search by meaning.
type Dense struct {
	// Embedder is "builtin" (Universal Sentence Encoder Lite, in-process,
	// English), "model" (model.embed_model on the configured Ollama or
	// OpenAI-compatible server: a multilingual model such as bge-m3), or
	// "none" (keyword search only).
	Embedder string `yaml:"embedder"`
	// MaxTokens is the input window of a "model" embedder, in its tokens
	// as estimated by cl100k; passages are read in windows of this size.
	MaxTokens int `yaml:"max_tokens"`
	// Workers is how many goroutines the builtin embedder gives to the
	// sidecar's indexing, on threads of lowered priority; 0 means one
	// fewer than the cores, so that searches always find one free. CLI
	// runs someone waits on (quire index, quire eval) use every core.
	Workers int `yaml:"workers"`
}

// Chunk sets how notes are cut into passages. Tokens are cl100k tokens.
type Chunk struct {
	// MaxTokens is the target passage size; long sections are cut into
	// windows of this many tokens.
	MaxTokens int `yaml:"max_tokens"`
	// OverlapTokens is how much consecutive windows of one long paragraph
	// share, so that a phrase cut by one window lies whole in the next.
	OverlapTokens int `yaml:"overlap_tokens"`
	// MinTokens: neighbouring sections smaller than this under one parent
	// heading are merged into one passage.
	MinTokens int `yaml:"min_tokens"`
}

// Search sets retrieval defaults.
type Search struct {
	// K is how many results `search` returns when not told otherwise.
	K int `yaml:"k"`
	// Synonyms adds WordNet synonyms of English query words at a low
	// weight; they only raise passages the query's own words find. Off:
	// on the dev set it changed no recall (README, "Figures").
	Synonyms bool `yaml:"synonyms"`
	// PreferLanguage multiplies the keyword scores of notes in the
	// query's own language, when it is known: for vaults holding the same
	// pages in several languages. 1 (the default) is off: it helps such a
	// vault and costs one where a note answers only in another language
	// (README, "Figures").
	PreferLanguage float64 `yaml:"prefer_language"`
	// PerNote caps how many passages of one note come before every
	// other note has shown its best, so one long note does not fill the
	// results; 0 is no cap. 3, with coordination by words: alone, caps
	// of 1 to 3 lowered span recall by more than 0.05 on some question
	// types; with words counted once, 3 raised every type on both dev
	// sets (README, "Figures").
	PerNote int `yaml:"per_note"`
	// Coordination is what Bleve's coordination factor counts: "words"
	// (the default), the share of the query's words a passage holds,
	// each word once whatever field or language it is found in; or
	// "fields", the share of field × language clauses it matched (the
	// query before, kept to reproduce earlier figures; Fields.Separate
	// applies to it only).
	Coordination string `yaml:"coordination"`
	// Rerank reorders the pool of candidates before the cut to k: "off"
	// keeps the fused order, "builtin" applies the learned reranker
	// (search/rerank.go, fitted by internal/fitrerank), "endpoint" a
	// configured reranker model server (rerank:), falling back to the
	// built-in one (README, "Figures").
	Rerank string `yaml:"rerank"`
	// DenseWeight is the dense channel's weight in hybrid fusion, keyword
	// scores weighing 1 (README, "Figures").
	DenseWeight float64 `yaml:"dense_weight"`
	// Pool is how many passages each channel gives hybrid fusion.
	Pool int `yaml:"pool"`
	// Fields weigh a keyword match in a note's title, aliases and
	// headings against one in its body (1); 0 leaves a field out.
	Fields Fields `yaml:"fields"`
}

// Fields are the keyword fields' weights (search.fields).
type Fields struct {
	Title    float64 `yaml:"title"`
	Aliases  float64 `yaml:"aliases"`
	Headings float64 `yaml:"headings"`
	// Separate requires a body match and scores title, aliases and
	// headings beside it (bm25.FieldWeights), with coordination "fields"
	// only. Off: it gained ariostea but lowered the English help vault's
	// MRR (README, "Figures").
	Separate bool `yaml:"separate"`
	// Exact weighs a query word matched whole as an exact token (an IP
	// address, a version, a snake_case or kebab-case name, a #tag, a
	// path: bm25.ExactTokens) beside its words' score; 0 leaves it out.
	Exact float64 `yaml:"exact"`
}

// Default returns the configuration used when no file exists.
func Default() Config {
	return Config{
		MaxFileBytes: 5 << 20,
		Folder:       "Quire",
		Ingest:       Ingest{MaxCalls: 24, MaxBytes: 20 << 20, ConsolidateSources: 3},
		Chunk:        Chunk{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64},
		Search:       Search{K: 10, PreferLanguage: 1, DenseWeight: 0.25, Pool: 50, PerNote: 3, Coordination: "words", Rerank: "off", Fields: Fields{Title: 1, Aliases: 1, Headings: 0.5, Exact: 1}},
		Dense:        Dense{Embedder: "builtin", MaxTokens: 512},
		MCP:          MCP{Private: "withhold"},
		Model:        llm.Default(),
		Rerank:       Rerank{Timeout: 5 * time.Second},
	}
}

// Validate reports the first bad value, naming its key.
func (c Config) Validate() error {
	// NaN fails every comparison, so it would pass each range check below
	// (YAML reads .nan and .inf as floats) and break searches later.
	if key := nonFinite(reflect.ValueOf(c), ""); key != "" {
		return fmt.Errorf("%s: must be a finite number", key)
	}
	switch {
	case c.MaxFileBytes <= 0:
		return errors.New("max_file_bytes: must be positive")
	case c.Chunk.MaxTokens < 32:
		return fmt.Errorf("chunk.max_tokens: %d is below the minimum of 32", c.Chunk.MaxTokens)
	case c.Chunk.OverlapTokens < 0 || c.Chunk.OverlapTokens >= c.Chunk.MaxTokens/2:
		return fmt.Errorf("chunk.overlap_tokens: %d must be between 0 and half of chunk.max_tokens", c.Chunk.OverlapTokens)
	case c.Chunk.MinTokens < 0 || c.Chunk.MinTokens > c.Chunk.MaxTokens:
		return fmt.Errorf("chunk.min_tokens: %d must be between 0 and chunk.max_tokens", c.Chunk.MinTokens)
	case c.Ingest.MaxCalls < 2:
		return fmt.Errorf("ingest.max_calls: %d is below the minimum of 2 (one read, one plan)", c.Ingest.MaxCalls)
	case c.Ingest.MaxBytes <= 0:
		return errors.New("ingest.max_bytes: must be positive")
	case c.Ingest.Consolidate < 0:
		return fmt.Errorf("ingest.consolidate: %d must be 0 (off) or more", c.Ingest.Consolidate)
	case c.Ingest.ConsolidateSources < 2:
		return fmt.Errorf("ingest.consolidate_sources: %d is below the minimum of 2", c.Ingest.ConsolidateSources)
	case c.Search.K <= 0:
		return errors.New("search.k: must be positive")
	case c.Search.PerNote < 0:
		return fmt.Errorf("search.per_note: %d must be 0 (no cap) or more", c.Search.PerNote)
	case c.Search.Rerank != "off" && c.Search.Rerank != "builtin" && c.Search.Rerank != "endpoint":
		return fmt.Errorf("search.rerank: %q is not off, builtin or endpoint", c.Search.Rerank)
	case c.Search.Rerank == "endpoint" && c.Rerank.Provider == "":
		return errors.New("search.rerank: endpoint needs a reranker server: set rerank.provider and rerank.endpoint")
	case c.Search.Coordination != "words" && c.Search.Coordination != "fields":
		return fmt.Errorf("search.coordination: %q is not words or fields", c.Search.Coordination)
	case c.Search.DenseWeight < 0 || c.Search.DenseWeight > 4:
		return fmt.Errorf("search.dense_weight: %g must be between 0 and 4", c.Search.DenseWeight)
	case c.Search.Pool < 1 || c.Search.Pool > 1000:
		return fmt.Errorf("search.pool: %d must be between 1 and 1000", c.Search.Pool)
	case min(c.Search.Fields.Title, c.Search.Fields.Aliases, c.Search.Fields.Headings, c.Search.Fields.Exact) < 0 ||
		max(c.Search.Fields.Title, c.Search.Fields.Aliases, c.Search.Fields.Headings, c.Search.Fields.Exact) > 4:
		return errors.New("search.fields: title, aliases, headings and exact must be between 0 (left out) and 4")
	case c.Search.PreferLanguage < 1 || c.Search.PreferLanguage > 4:
		return fmt.Errorf("search.prefer_language: %g must be between 1 (off) and 4", c.Search.PreferLanguage)
	case c.Dense.Embedder != "builtin" && c.Dense.Embedder != "model" && c.Dense.Embedder != "none":
		return fmt.Errorf("dense.embedder: %q is not builtin, model or none", c.Dense.Embedder)
	case c.Dense.Embedder == "model" && c.Model.EmbedModel == "":
		return errors.New("dense.embedder: model needs model.embed_model (and model.provider)")
	case c.Dense.MaxTokens < 16:
		return fmt.Errorf("dense.max_tokens: %d is below the minimum of 16", c.Dense.MaxTokens)
	case c.MCP.Private != "withhold" && c.MCP.Private != "include":
		return fmt.Errorf("mcp.private: %q is not withhold or include", c.MCP.Private)
	case c.Dense.Workers < 0:
		return fmt.Errorf("dense.workers: %d is negative (0 means one fewer than the cores)", c.Dense.Workers)
	}
	if err := ValidFolder(c.Folder); err != nil {
		return fmt.Errorf("folder: %w", err)
	}
	if err := c.Model.Validate(); err != nil {
		return fmt.Errorf("model.%w", err)
	}
	if err := c.Rerank.Validate(); err != nil {
		return fmt.Errorf("rerank.%w", err)
	}
	for _, p := range c.Ignore {
		if strings.TrimSpace(p) == "" {
			return errors.New("ignore: empty prefix")
		}
	}
	if _, err := vault.ParsePrivate(c.Private); err != nil {
		return fmt.Errorf("private: %w", err)
	}
	if err := c.Sources.Validate(); err != nil {
		return fmt.Errorf("sources.%w", err)
	}
	for _, p := range c.Private {
		if id, _ := source.Split(strings.TrimSpace(p)); id != source.Vault && !c.Sources.Has(id) {
			return fmt.Errorf("private: %q names the source %q, which sources: does not have", p, id)
		}
	}
	return nil
}

// PrivateNotes is the private: entries as the rest of Quire compares paths
// with them (vault.ParsePrivate). Validate refuses an entry that cannot be
// read; in a config not validated, such an entry is left out.
func (c Config) PrivateNotes() vault.Private {
	p, _ := vault.ParsePrivate(c.Private)
	return p
}

// MaxFolderBytes bounds the generated folder's name: most file systems
// allow 255 bytes per name, and a longer path helps no one.
const MaxFolderBytes = 255

// ValidFolder checks the shape of a generated folder name: relative,
// slash-separated and clean (no "." or ".." segments, no empty segment, no
// dot folder, no trailing space or dot, which Windows drops, no name or
// character Windows forbids), free of NUL and control characters, and at
// most MaxFolderBytes. Whether it exists as
// a file, or holds notes Quire did not write, depends on the vault: see
// CheckFolder.
func ValidFolder(f string) error {
	switch {
	case f == "":
		return errors.New("empty")
	case len(f) > MaxFolderBytes:
		return fmt.Errorf("%d bytes, over the limit of %d", len(f), MaxFolderBytes)
	case !utf8.ValidString(f):
		return fmt.Errorf("%q is not UTF-8", f)
	case strings.ContainsRune(f, '\\'):
		return fmt.Errorf("%q: use / between folders", f)
	case strings.HasPrefix(f, "/") || filepath.IsAbs(f) || (len(f) > 1 && f[1] == ':'):
		return fmt.Errorf("%q is not relative to the vault", f)
	}
	for _, r := range f {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%q holds a control or format character (%U)", f, r)
		}
	}
	for _, seg := range strings.Split(f, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("%q has an empty folder name", f)
		case seg == "." || seg == "..":
			return fmt.Errorf("%q has a %q segment", f, seg)
		case strings.HasPrefix(seg, "."):
			return fmt.Errorf("%q is or lies in a dot folder (%s)", f, seg)
		case strings.TrimSpace(seg) != seg || strings.HasSuffix(seg, "."):
			return fmt.Errorf("%q: folder name %q starts or ends with a space, or ends with a dot", f, seg)
		case strings.ContainsAny(seg, `<>:"|?*`):
			return fmt.Errorf("%q: folder name %q holds one of <>:\"|?*, which Windows forbids", f, seg)
		case windowsReserved(seg):
			return fmt.Errorf("%q: %q is a name Windows reserves for a device", f, seg)
		}
	}
	return nil
}

// windowsReserved reports whether Windows reads a file name as a device
// (CON, NUL, COM1, LPT¹…), whatever its case or extension: a vault synced
// to Windows could not hold the folder.
func windowsReserved(name string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(name), ".")
	base = strings.TrimRight(base, " ")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// CheckFolder checks f with ValidFolder and against the vault: it must
// not be an existing file (or a link), and if it exists it must be a
// folder.
func CheckFolder(vaultDir, f string) error {
	if err := ValidFolder(f); err != nil {
		return err
	}
	st, err := os.Lstat(filepath.Join(vaultDir, filepath.FromSlash(f)))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%q is a symbolic link", f)
	case !st.IsDir():
		return fmt.Errorf("%q is an existing file", f)
	}
	return nil
}

// Load reads <stateDir>/config.yaml over the defaults. A missing file is
// not an error. Unknown keys are returned as warnings naming them; a bad
// value is an error naming the key and the file.
func Load(stateDir string) (Config, []string, error) {
	cfg := Default()
	path := filepath.Join(stateDir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil, nil
	}
	if err != nil {
		return cfg, nil, fmt.Errorf("read config: %w", err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) (Config, []string, error) {
	cfg := Default()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil, nil
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return cfg, nil, fmt.Errorf("%s: %w", path, err)
	}
	var warnings []string
	for _, k := range unknownKeys(raw, reflect.TypeOf(cfg), "") {
		warnings = append(warnings, fmt.Sprintf("%s: unknown key %q ignored", path, k))
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return cfg, warnings, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, warnings, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, warnings, nil
}

// nonFinite returns the YAML key of the first float field of v that is NaN
// or infinite, or "".
func nonFinite(v reflect.Value, prefix string) string {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		switch f := v.Field(i); f.Kind() {
		case reflect.Float32, reflect.Float64:
			if math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0) {
				return prefix + name
			}
		case reflect.Struct:
			if key := nonFinite(f, prefix+name+"."); key != "" {
				return key
			}
		}
	}
	return ""
}

// unknownKeys walks a decoded YAML map against the struct's yaml tags.
func unknownKeys(m map[string]any, t reflect.Type, prefix string) []string {
	known := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			known[name] = f.Type
		}
	}
	var out []string
	for k, v := range m {
		ft, ok := known[k]
		if !ok {
			out = append(out, prefix+k)
			continue
		}
		sub, isMap := v.(map[string]any)
		switch {
		case isMap && ft.Kind() == reflect.Struct:
			out = append(out, unknownKeys(sub, ft, prefix+k+".")...)
		case isMap && ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			// sources.git.<id>: each entry's keys are the struct's.
			for id, e := range sub {
				if em, ok := e.(map[string]any); ok {
					out = append(out, unknownKeys(em, ft.Elem(), prefix+k+"."+id+".")...)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

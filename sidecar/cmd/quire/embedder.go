package main

import "github.com/quire-app/quire/sidecar/engine"

// loadEmbedder gives the configured embedder; a benchmark build swaps it.
var loadEmbedder = engine.LoadEmbedder

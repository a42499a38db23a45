//go:build race

package hnsw

// raceOn lets the slow, purely numerical tests step aside under -race,
// where they take minutes and find no races the concurrency tests miss.
const raceOn = true

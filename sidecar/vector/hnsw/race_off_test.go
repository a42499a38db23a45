//go:build !race

package hnsw

const raceOn = false

//go:build !race

package vector

const raceOn = false

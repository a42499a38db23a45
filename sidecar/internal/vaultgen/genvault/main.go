// Command genvault writes the deterministic benchmark vault:
// go run ./internal/vaultgen/genvault -notes 10000 DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

func main() {
	notes := flag.Int("notes", 10000, "number of notes")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genvault [-notes N] [-seed S] DIR")
		os.Exit(2)
	}
	paths, err := vaultgen.Write(flag.Arg(0), vaultgen.Options{Notes: *notes, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "genvault:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "genvault: %d notes in %s\n", len(paths), flag.Arg(0))
}

// Command genvault writes the deterministic benchmark vault:
// go run ./internal/vaultgen/genvault -notes 10000 DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

func main() {
	notes := flag.Int("notes", 10000, "number of notes")
	seed := flag.Int64("seed", 1, "random seed")
	queries := flag.String("queries", "", "also write 200 generated queries to this JSON-lines file")
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
	if *queries != "" {
		qs, err := vaultgen.Queries(flag.Arg(0), paths, 200, *seed, *seed+1)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genvault:", err)
			os.Exit(1)
		}
		f, err := os.Create(*queries)
		if err != nil {
			fmt.Fprintln(os.Stderr, "genvault:", err)
			os.Exit(1)
		}
		enc := json.NewEncoder(f)
		for _, q := range qs {
			enc.Encode(q)
		}
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "genvault:", err)
			os.Exit(1)
		}
	}
}

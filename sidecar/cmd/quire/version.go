package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/buildinfo"
	"github.com/quire-app/quire/sidecar/server"
)

// cmdVersion prints what this binary is: version, commit, build date, Go
// version, OS/arch and whether it reads PDFs. The plugin runs
// `quire version --json` to check an engine before starting it: its
// protocol range says whether the two can talk.
func cmdVersion(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON document")
	if err := parseHelp(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("version takes no arguments")
	}
	in := buildinfo.Get()
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		// The protocol range tells the plugin, before it starts this
		// engine, whether the two can talk: their versions need not match.
		return enc.Encode(struct {
			buildinfo.Info
			Protocol    int `json:"protocol"`
			MinProtocol int `json:"minProtocol"`
		}{in, server.Protocol, server.MinProtocol})
	}
	fmt.Println(in.String())
	return nil
}

//go:build !quiretest

package main

import (
	"flag"

	"github.com/quire-app/quire/sidecar/ingest/fetch"
)

// testHosts is the test-only DNS override, absent from this build (see
// testhosts.go, built with the quiretest tag).
type testHosts struct{}

// testHostsFlag adds nothing: without the quiretest tag there is no
// --test-hosts flag.
func testHostsFlag(*flag.FlagSet) *string { return new(string) }

func parseTestHosts(string) (*testHosts, error) { return nil, nil }

// client returns the guarded fetch client with its defaults.
func (*testHosts) client(opts fetch.Options) *fetch.Client { return fetch.New(opts) }

func (*testHosts) String() string { return "" }

//go:build !quiretest

package main

import (
	"errors"
	"strings"
	"testing"
)

// TestNoTestHostsInRelease: the test-only DNS override is built only with
// the quiretest tag; a release build refuses the flag as unknown.
func TestNoTestHostsInRelease(t *testing.T) {
	v := writeVault(t)
	for _, cmd := range []string{"serve", "ingest"} {
		_, err := runCLI(t, cmd, "--vault", v, "--test-hosts", "not-a-mapping", "http://site.test/")
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "flag provided but not defined: -test-hosts") {
			t.Errorf("quire %s --test-hosts: %v, want the flag unknown", cmd, err)
		}
	}
	if strings.Contains(usage, "test-hosts") {
		t.Error("the usage text mentions --test-hosts")
	}
}

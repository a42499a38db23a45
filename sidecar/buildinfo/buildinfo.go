// Package buildinfo owns what a quire binary says about its own build: the
// release version, the commit and date it was built from, and whether the
// PDF reader (MuPDF through cgo) is linked in. Release builds set the
// strings with -ldflags "-X github.com/quire-app/quire/sidecar/buildinfo.version=…"
// (see .goreleaser.yaml); a plain `go build` reports the version in
// manifest.json, which a test keeps equal to Default.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Default is the version a build without -ldflags reports. It equals the
// plugin's version in manifest.json: the plugin and the engine are
// released together under one number.
const Default = "0.1.0"

// Set by -ldflags -X at release time.
var (
	version = Default
	commit  = ""
	date    = ""
)

// Info describes one build of quire.
type Info struct {
	// Version is the release version, e.g. "0.1.0", without a leading v.
	Version string `json:"version"`
	// Commit is the git commit the binary was built from ("" when unknown).
	Commit string `json:"commit"`
	// Date is the build time, RFC 3339 ("" when unknown).
	Date string `json:"date"`
	// Go is the Go toolchain version.
	Go string `json:"go"`
	// OS and Arch are the platform the binary runs on.
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// PDF reports whether the PDF reader (MuPDF, cgo) is linked in.
	PDF bool `json:"pdf"`
}

// Get returns this binary's build information. Commit and date fall back
// to what the Go toolchain stamped (vcs.revision, vcs.time) when -ldflags
// did not set them.
func Get() Info {
	in := Info{Version: strings.TrimPrefix(version, "v"), Commit: stamped(commit), Date: stamped(date), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, PDF: cgoEnabled}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && in.Commit == "":
				in.Commit = s.Value
			case s.Key == "vcs.time" && in.Date == "":
				in.Date = s.Value
			}
		}
	}
	return in
}

// stamped drops the placeholders GoReleaser writes when it cannot read the
// commit (seen in a git worktree: "none" and the zero time), so that they
// read as unknown rather than as a commit named none built in year 1.
func stamped(s string) string {
	switch s {
	case "none", "unknown", "0001-01-01T00:00:00Z":
		return ""
	}
	return s
}

// Version is the release version alone.
func Version() string { return strings.TrimPrefix(version, "v") }

// String is the one-line form `quire version` prints.
func (in Info) String() string {
	c := in.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		c = "unknown commit"
	}
	d := in.Date
	if d == "" {
		d = "unknown date"
	}
	pdf := "PDF reading on (MuPDF)"
	if !in.PDF {
		pdf = "PDF reading off (built without cgo)"
	}
	return fmt.Sprintf("quire %s (%s, %s) %s %s/%s, %s", in.Version, c, d, in.Go, in.OS, in.Arch, pdf)
}

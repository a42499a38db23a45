package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/source"
)

// TestSources loads the shape of sources: the issue gives, and refuses
// each bad value with an error naming its key.
func TestSources(t *testing.T) {
	const good = `
sources:
  git:
    ops:                       # the source id
      path: /home/me/ops-notes # an existing clone, read in place, never written
      branch: main
      fetch: manual            # on-query | every 15m | manual
    travel:
      url: https://example.org/travel-notes.git
      fetch: every 15m
  folders:
    work:
      paths: ["/home/me/work/**", "/home/me/notes"]
      include: ["*.md"]        # the default
      exclude: ["drafts/**"]
private: ["ops:secrets/"]
`
	tests := []struct{ name, yaml, wantErr, wantWarn string }{
		{name: "the issue's shape", yaml: good},
		{name: "unknown source key warns", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      mirror: true\n", wantWarn: `"sources.git.ops.mirror"`},
		{name: "vault is reserved", yaml: "sources:\n  folders:\n    vault:\n      paths: [/x]\n", wantErr: "sources.folders.vault.id"},
		{name: "bad id", yaml: "sources:\n  git:\n    Ops Notes:\n      path: /x\n", wantErr: "sources.git.Ops Notes.id"},
		{name: "ids unique across kinds", yaml: "sources:\n  git:\n    ops:\n      path: /x\n  folders:\n    ops:\n      paths: [/y]\n", wantErr: "sources.folders.ops: the id"},
		{name: "neither path nor url", yaml: "sources:\n  git:\n    ops:\n      branch: main\n", wantErr: "sources.git.ops.path"},
		{name: "both path and url", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      url: https://h/r.git\n", wantErr: "sources.git.ops.url"},
		{name: "relative path", yaml: "sources:\n  git:\n    ops:\n      path: notes\n", wantErr: "sources.git.ops.path"},
		{name: "url with a password", yaml: "sources:\n  git:\n    ops:\n      url: https://me:secret@h/r.git\n", wantErr: "sources.git.ops.url"},
		{name: "url of another scheme", yaml: "sources:\n  git:\n    ops:\n      url: ext::sh -c touch% /tmp/x\n", wantErr: "sources.git.ops.url"},
		{name: "option as url", yaml: "sources:\n  git:\n    ops:\n      url: --upload-pack=touch\n", wantErr: "sources.git.ops.url"},
		{name: "bad branch", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      branch: -f\n", wantErr: "sources.git.ops.branch"},
		{name: "bad fetch", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      fetch: hourly\n", wantErr: "sources.git.ops.fetch"},
		{name: "fetch too often", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      fetch: every 5s\n", wantErr: "sources.git.ops.fetch"},
		{name: "bad exclude", yaml: "sources:\n  git:\n    ops:\n      path: /x\n      exclude: [\"../x\"]\n", wantErr: "sources.git.ops.exclude"},
		{name: "folder without paths", yaml: "sources:\n  folders:\n    work:\n      include: [\"*.md\"]\n", wantErr: "sources.folders.work.paths"},
		{name: "relative folder path", yaml: "sources:\n  folders:\n    work:\n      paths: [work/**]\n", wantErr: "sources.folders.work.paths"},
		{name: "private names no source", yaml: "private: [\"devops:secrets/\"]\n", wantErr: `private: "devops:secrets/"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, warns, err := Load(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantWarn != "" && !strings.Contains(strings.Join(warns, ";"), tt.wantWarn) {
				t.Errorf("warnings = %v, want one naming %s", warns, tt.wantWarn)
			}
			if tt.wantWarn == "" && len(warns) > 0 {
				t.Errorf("warnings = %v", warns)
			}
		})
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.Sources.List("/v", "/v/.quire")
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID+"="+string(s.Kind)+":"+filepath.ToSlash(s.Root))
	}
	want := "vault=vault:/v ops=git:/home/me/ops-notes travel=git:/v/.quire/sources/travel/files work=folder:/home/me"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("List = %s\nwant   %s", got, want)
	}
	work := list[3]
	if !work.Match("work/a.md") || !work.Match("notes/x/b.md") || work.Match("work/drafts/c.md") || work.Match("notes/drafts/c.md") || work.Match("other/a.md") {
		t.Errorf("work source paths %v match wrongly", work.Paths)
	}
	if !cfg.PrivateNotes().Holds(source.Key("ops", "secrets/k.md")) || cfg.PrivateNotes().Holds(source.Key("ops", "runbooks/k.md")) {
		t.Error("private ops:secrets/ does not hold ops:secrets/k.md alone")
	}
	if d, ok := FetchEvery(cfg.Sources.Git["travel"].Fetch); !ok || d.Minutes() != 15 {
		t.Errorf("FetchEvery = %v %v", d, ok)
	}
}

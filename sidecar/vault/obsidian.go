package vault

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ObsidianExcludes reads what the vault's own Obsidian settings exclude:
// the templates folder (.obsidian/templates.json) and "Excluded files"
// (.obsidian/app.json userIgnoreFilters: folder prefixes, or /regex/).
// Missing or unreadable settings exclude nothing.
func ObsidianExcludes(root string) (prefixes []string, patterns []*regexp.Regexp) {
	var tpl struct {
		Folder string `json:"folder"`
	}
	if readJSON(filepath.Join(root, ".obsidian", "templates.json"), &tpl) && strings.Trim(tpl.Folder, "/ ") != "" {
		prefixes = append(prefixes, strings.Trim(tpl.Folder, "/ ")+"/")
	}
	var app struct {
		UserIgnoreFilters []string `json:"userIgnoreFilters"`
	}
	if readJSON(filepath.Join(root, ".obsidian", "app.json"), &app) {
		for _, f := range app.UserIgnoreFilters {
			f = strings.TrimSpace(f)
			if len(f) > 2 && strings.HasPrefix(f, "/") && strings.HasSuffix(f, "/") {
				if re, err := regexp.Compile(f[1 : len(f)-1]); err == nil {
					patterns = append(patterns, re)
				}
			} else if f != "" {
				prefixes = append(prefixes, strings.TrimPrefix(f, "/"))
			}
		}
	}
	return prefixes, patterns
}

func readJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(data, v) == nil
}

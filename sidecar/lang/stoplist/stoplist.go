// Package stoplist registers a stop list with Bleve, as a token map and a
// stop filter of one name, for the languages whose Bleve package Quire
// leaves out (hrstop, plstop) while existing indexes still name its filter.
package stoplist

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/registry"
)

// Register registers words (one a line, Snowball's "|" comments allowed)
// as the token map and the stop filter called name. It panics when the
// name is taken: it runs in an init.
func Register(name string, words []byte) {
	err := registry.RegisterTokenMap(name, func(map[string]interface{}, *registry.Cache) (analysis.TokenMap, error) {
		m := analysis.NewTokenMap()
		return m, m.LoadBytes(words)
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterTokenFilter(name, func(_ map[string]interface{}, cache *registry.Cache) (analysis.TokenFilter, error) {
		m, err := cache.TokenMapNamed(name)
		if err != nil {
			return nil, err
		}
		return stop.NewStopTokensFilter(m), nil
	})
	if err != nil {
		panic(err)
	}
}

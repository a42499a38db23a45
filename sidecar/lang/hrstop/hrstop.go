// Package hrstop registers Bleve's Croatian stop list and stop filter
// under Bleve's own names ("stop_hr") without Bleve's hr package, whose
// init compiles its stemmer's hundred-odd regular expressions: that was a
// tenth of a one-shot search's CPU time, and Quire does not stem Croatian
// (bm25's families). Existing indexes name "stop_hr" in their mapping, so
// the name must stay. The list is a copy of Bleve v2.6.3's
// analysis/lang/hr/stop_words_hr.go, Copyright (c) 2020 Couchbase, Inc.,
// Apache License 2.0 (NOTICE).
package hrstop

import "github.com/quire-app/quire/sidecar/lang/stoplist"

// StopName is the token map's and the filter's name, as in Bleve.
const StopName = "stop_hr"

// StopWords is the Croatian stop list, one word a line.
var StopWords = []byte(`biti
jesam
budem
sam
jesi
budeš
si
jesmo
budemo
smo
jeste
budete
ste
jesu
budu
su
bih
bijah
bjeh
bijaše
bi
bje
bješe
bijasmo
bismo
bjesmo
bijaste
biste
bjeste
bijahu
biste
bjeste
bijahu
bi
biše
bjehu
bješe
bio
bili
budimo
budite
bila
bilo
bile
ću
ćeš
će
ćemo
ćete
želim
želiš
želi
želimo
želite
žele
moram
moraš
mora
moramo
morate
moraju
trebam
trebaš
treba
trebamo
trebate
trebaju
mogu
možeš
može
možemo
možete
za
`)

func init() { stoplist.Register(StopName, StopWords) }

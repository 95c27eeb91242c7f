package postgres

import (
	"fmt"
	"strings"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
)

// searchWords reads a reward's search words (catalogue.Word) from the text form of its
// tsvector, as the snapshot statements return it: each word quoted, a quote in it doubled and a
// backslash escaping the next character, with its places after a colon ('lex':1A,2 'other':3B;
// a place without a letter weighs D), the words in sorted order. One reader serves a whole
// load: the words it returns and their places are its own arrays, reused by its next read, and
// a word's text is cut from the vector unless it had a quote or backslash. Nothing is allocated
// but for those words, once the arrays have grown to the longest vector.
type searchWords struct {
	words  []catalogue.Word
	places []catalogue.Place
	ends   []int // words[k]'s places end at places[ends[k]]
}

// read returns the words of vector, valid until the next read.
func (r *searchWords) read(vector string) ([]catalogue.Word, error) {
	r.words, r.places, r.ends = r.words[:0], r.places[:0], r.ends[:0]
	s := vector
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		if s[i] != '\'' {
			return nil, fmt.Errorf("tsvector %q: a lexeme at %d", s, i)
		}
		i++
		var lex string
		// Most lexemes have no quote or backslash: then the lexeme is cut from s.
		if end := strings.IndexByte(s[i:], '\''); end >= 0 && !strings.ContainsRune(s[i:i+end], '\\') &&
			(i+end+1 >= len(s) || s[i+end+1] != '\'') {
			lex = s[i : i+end]
			i += end + 1
		} else {
			var b strings.Builder
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("tsvector %q: an unclosed lexeme", s)
				}
				c := s[i]
				if c == '\'' && i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				if c == '\'' {
					i++
					break
				}
				if c == '\\' && i+1 < len(s) {
					i++
					c = s[i]
				}
				b.WriteByte(c)
				i++
			}
			lex = b.String()
		}
		var err error
		if r.places, i, err = appendPlaces(r.places, s, i); err != nil {
			return nil, err
		}
		r.words = append(r.words, catalogue.Word{Text: lex})
		r.ends = append(r.ends, len(r.places))
	}
	// The places are sliced once all are read: appends may have moved them.
	start := 0
	for k, end := range r.ends {
		if end > start {
			r.words[k].Places = r.places[start:end:end]
		}
		start = end
	}
	return r.words, nil
}

// readSearchWords is the words of vector in arrays of their own, for texts kept past the read.
func readSearchWords(vector string) ([]catalogue.Word, error) {
	var r searchWords
	return r.read(vector)
}

// appendPlaces appends the places after a lexeme at s[i:] (":1A,2"), if any, and returns where
// they end.
func appendPlaces(places []catalogue.Place, s string, i int) ([]catalogue.Place, int, error) {
	if i >= len(s) || s[i] != ':' {
		return places, i, nil
	}
	i++
	for {
		j := i
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < 6 {
			n = n*10 + int(s[j]-'0')
			j++
		}
		if j == i {
			return nil, i, fmt.Errorf("tsvector %q: a position at %d", s, i)
		}
		w := catalogue.WeightD
		if j < len(s) && s[j] >= 'A' && s[j] <= 'D' {
			w = catalogue.Weight('D' - s[j]) // A is the weightiest
			j++
		}
		places = append(places, catalogue.PlaceAt(n, w))
		i = j
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		return places, i, nil
	}
}

// addSearchText adds a search row to a load's first pass, its words read by r; a vector r
// cannot read leaves the snapshot without its search index, saying why.
func addSearchText(texts *catalogue.SearchTexts, r *searchWords, row db.CatalogueSnapshotSearchRow) {
	words, err := r.read(row.SearchVector)
	if err != nil {
		texts.Unreadable(row.ID, err)
		return
	}
	texts.Add(row.ID, catalogue.SearchText{Name: row.SearchName, Words: words, LowerName: row.LowerName})
}

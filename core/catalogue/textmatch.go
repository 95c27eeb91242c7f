package catalogue

// The store's search rule: which rewards, brands and categories a search's text matches, and how
// well (relevance). The storage keeps each reward's words with their positions and weights
// (SearchText); everything else about matching and ranking is decided here.
//
// Full text: a search's words (runs of letters and digits, lower case) each match a word of the
// reward that they begin; a reward matches when every one of them does. Its rank (textRank)
// grows with each word found, found again, found in a weightier place (names weigh 1, the
// descriptions and category names 0.4), and, for several words, found close to one another.
//
// Typos: when no reward matches the full text, a reward matches when a continuous stretch of its
// name is like the search (wordSimilarity at least wordSimilarityThreshold). Likeness counts
// trigrams: each word padded with two blanks before and one after and cut into every run of
// three characters; two texts are as like as the share of their trigrams they have in common.
// Brand and category names match a search that begins them, is like them (similarity at least
// similarityThreshold), or is like a stretch of them.
//
// Scores are single-precision (float32) and computed in one fixed order of operations, so equal
// matches score equal and their order falls to the list's tie-breaks (x-score, newest, id). The
// storage tests check this rule against a reference in SQL (PostgreSQL's full-text search and
// pg_trgm, configured as the rule says), relevance to the last bit.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How alike texts must be to match.
const (
	// similarityThreshold is the similarity at which a brand or category name matches a search.
	similarityThreshold = 0.3
	// wordSimilarityThreshold is the word similarity at which a stretch of a name matches a
	// search (a typo).
	wordSimilarityThreshold = 0.6
)

// isWordRune reports whether r is part of a word: a letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// appendTrigrams appends the trigrams of s in order: each word (a run of letters and digits)
// padded with two blanks before and one after, then every three consecutive characters, repeats
// kept. s is lower case.
func appendTrigrams(dst []string, s string) []string {
	eachTrigram(nil, s, func(t []byte) { dst = append(dst, string(t)) })
	return dst
}

// eachTrigram calls fn with each trigram of s in appendTrigrams's order, in a slice of buf
// (reused: fn must copy what it keeps), and returns buf for the next call.
func eachTrigram(buf []byte, s string, fn func([]byte)) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		buf = append(append(append(buf[:0], "  "...), s[i:j]...), ' ')
		// starts of the characters of buf
		var at [3]int
		k := 0
		for p := 0; p < len(buf); {
			_, n := utf8.DecodeRune(buf[p:])
			if k >= 2 {
				fn(buf[at[(k-2)%3] : p+n])
			}
			at[k%3] = p
			k++
			p += n
		}
		i = j
	}
	return buf
}

// uniqueTrigrams is the set of the trigrams of s: each once, sorted.
func uniqueTrigrams(s string) []string {
	t := appendTrigrams(nil, s)
	slices.Sort(t)
	return slices.Compact(t)
}

// shareOf is how alike two sets of len1 and len2 trigrams with count in common are: the common
// ones' share of all of them.
func shareOf(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// similarity is how alike two texts are, from their uniqueTrigrams: 0 when either has none.
func similarity(a, b []string) float32 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return shareOf(commonTrigrams(a, b), len(a), len(b))
}

// commonTrigrams counts the trigrams two sorted sets share.
func commonTrigrams(a, b []string) int {
	count := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			count++
			i++
			j++
		}
	}
	return count
}

// wordSimilarity is how alike query is to the stretch of text most like it, from the trigrams of
// each (appendTrigrams): the greatest similarity of the query's trigrams to a continuous extent
// of the text's.
func wordSimilarity(query, text []string) float32 {
	ids := map[string]int32{}
	for _, t := range query {
		if _, ok := ids[t]; !ok {
			ids[t] = int32(len(ids))
		}
	}
	ulen1 := len(ids)
	seq := make([]int32, len(text))
	for i, t := range text {
		id, ok := ids[t]
		if !ok {
			id = int32(len(ids))
			ids[t] = id
		}
		seq[i] = id
	}
	found := make([]bool, len(ids))
	for i := range ulen1 {
		found[i] = true
	}
	lastpos := make([]int32, len(ids))
	return iterateWordSimilarity(seq, found, ulen1, lastpos)
}

// iterateWordSimilarity computes wordSimilarity in one pass over the text's trigrams: seq is the
// identity of each trigram of the text in order, found says which identities are trigrams of the
// query, ulen1 counts the query's distinct trigrams, lastpos is scratch as long as found. Each
// trigram of the query found at i ends a candidate extent; the extent's start moves right while
// that makes it more alike, counting each distinct trigram once (lastpos: where it was last seen).
func iterateWordSimilarity(seq []int32, found []bool, ulen1 int, lastpos []int32) float32 {
	for i := range lastpos {
		lastpos[i] = -1
	}
	var smlrMax float32
	ulen2, count, upper, lower := 0, 0, -1, -1
	for i, trg := range seq {
		if lower >= 0 || found[trg] {
			if lastpos[trg] < 0 {
				ulen2++
				if found[trg] {
					count++
				}
			}
			lastpos[trg] = int32(i)
		}
		if !found[trg] {
			continue
		}
		upper = i
		if lower == -1 {
			lower = i
			ulen2 = 1
		}
		smlrCur := shareOf(count, ulen1, ulen2)
		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if smlrTmp := shareOf(tmpCount, ulen1, tmpUlen2); smlrTmp > smlrCur {
				smlrCur, ulen2, lower, count = smlrTmp, tmpUlen2, tmpLower, tmpCount
			}
			t := seq[tmpLower]
			if lastpos[t] == int32(tmpLower) {
				tmpUlen2--
				if found[t] {
					tmpCount--
				}
			}
		}
		smlrMax = max(smlrMax, smlrCur)
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			if t := seq[tmpLower]; lastpos[t] == int32(tmpLower) {
				lastpos[t] = -1
			}
		}
	}
	return smlrMax
}

// tsPos is a word's place in a reward's texts: its weight in the two high bits (3 A, 2 B, 1 C,
// 0 D) and its position (1 to 16383) in the others.
type tsPos uint16

func (p tsPos) weight() float32 { return rankWeights[p>>14] }
func (p tsPos) at() int32       { return int32(p & 0x3fff) }

// rankWeights are the weights of places D, C, B and A: names are A, descriptions and category
// names B.
var rankWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// scanTSVector reads a search vector (SearchText.Vector): each word quoted, a quote in it
// doubled and a backslash escaping the next character, with its places after a colon
// ('lex':1A,2 'other':3B), the words in sorted order. It calls fn with each word and its
// places, in order: the word may be cut from s, the places are buf's (reused), so nothing is
// allocated but for a word with a quote or backslash.
func scanTSVector(s string, buf []tsPos, fn func(lex string, pos []tsPos)) error {
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		if s[i] != '\'' {
			return fmt.Errorf("tsvector %q: a lexeme at %d", s, i)
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
					return fmt.Errorf("tsvector %q: an unclosed lexeme", s)
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
		if buf, i, err = parsePositions(s, i, buf[:0]); err != nil {
			return err
		}
		fn(lex, buf)
	}
	return nil
}

// parsePositions reads the positions after a lexeme at s[i:] (":1A,2"), if any, and returns
// where they end.
func parsePositions(s string, i int, pos []tsPos) ([]tsPos, int, error) {
	if i >= len(s) || s[i] != ':' {
		return pos, i, nil
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
		p := tsPos(n)
		if j < len(s) && s[j] >= 'A' && s[j] <= 'D' {
			p |= tsPos('D'-s[j]) << 14
			j++
		}
		pos = append(pos, p)
		i = j
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		return pos, i, nil
	}
}

// proximity is what two words w positions apart count for in a rank of several words: close to
// 1 when they are next to each other, falling off as they part, nothing beyond 100.
func proximity(w int32) float32 {
	if w > 100 {
		return 1e-30
	}
	return float32(1.0 / (1.005 + 0.05*math.Exp(float64(float32(w))/1.5-2)))
}

// textRank is the rank of a reward a search's words all match. items holds, for each distinct
// word of the search (sorted, each once), the places of every word of the reward it begins, in
// the vector's order (none: nil); all says the search had more than one word before duplicates
// went. One word ranks by how often and where it is found (rankAny); several by how close they
// are (rankAll). A rank is never below 1e-20.
func textRank(items [][][]tsPos, all bool) float32 {
	var res float32
	if all && len(items) >= 2 {
		res = rankAll(items)
	} else {
		res = rankAny(items)
	}
	if res < 0 {
		res = 1e-20
	}
	return res
}

// rankAny sums, for each word of the search and each word of the reward it begins, the weights
// of its places, the n-th place counting 1/n² of its weight and the weightiest counting whole,
// over π²/6 (what 1/n² sums to), and divides by the number of words searched.
func rankAny(items [][][]tsPos) float32 {
	var res float32
	for _, entries := range items {
		for _, post := range entries {
			var resj float32
			wjm := float32(-1.0)
			jm := 0
			for j, p := range post {
				resj = resj + p.weight()/float32((j+1)*(j+1))
				if p.weight() > wjm {
					wjm, jm = p.weight(), j
				}
			}
			x := wjm + resj - wjm/float32((jm+1)*(jm+1))
			res = float32(float64(res) + float64(x)/1.64493406685)
		}
	}
	if len(items) > 0 {
		res = res / float32(len(items))
	}
	return res
}

// rankAll combines, as independent chances (1 - (1-a)(1-b)), every pair of places of two
// different words of the search (each word's entry with the last entry of each word before it),
// a pair counting the square root of both weights times their proximity; -1 when no two words
// were found apart.
func rankAll(items [][][]tsPos) float32 {
	res := float32(-1.0)
	last := make([][]tsPos, len(items))
	for i, entries := range items {
		for _, post := range entries {
			last[i] = post
			for k := range i {
				ct := last[k]
				if ct == nil {
					continue
				}
				for _, pl := range post {
					for _, pp := range ct {
						dist := pl.at() - pp.at()
						if dist < 0 {
							dist = -dist
						}
						if dist == 0 {
							continue
						}
						curw := float32(math.Sqrt(float64(pl.weight() * pp.weight() * proximity(dist))))
						if res < 0 {
							res = curw
						} else {
							res = float32(1.0 - (1.0-float64(res))*(1.0-float64(curw)))
						}
					}
				}
			}
		}
	}
	return res
}

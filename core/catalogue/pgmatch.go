package catalogue

// PostgreSQL's text matching, as the store's search statements use it, computed in memory: the
// read model's search answers exactly what CatalogueSearch, CatalogueBrands and
// CatalogueCategories answer, relevance and ties included. Each function names the PostgreSQL
// 15 source it follows (pg_trgm's trgm_op.c, tsearch's tsrank.c), down to where it rounds to
// float4; the storage tests compare them with the server on random texts.

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thresholds of pg_trgm's operators, at their defaults (the service never sets them).
const (
	similarityThreshold     = 0.3 // pg_trgm.similarity_threshold: a % b
	wordSimilarityThreshold = 0.6 // pg_trgm.word_similarity_threshold: a <% b
)

// isWordRune is pg_trgm's ISWORDCHR (t_isalnum) in a UTF-8 database.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// appendTrigrams appends the trigrams of s in pg_trgm's generate_trgm_only order: each word (a
// run of letters and digits) padded with two blanks before and one after, then every three
// consecutive characters, repeats kept. s is already lower case (pg_trgm lowers each word again,
// which changes nothing then).
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

// uniqueTrigrams is pg_trgm's generate_trgm: the trigrams of s, each once, sorted.
func uniqueTrigrams(s string) []string {
	t := appendTrigrams(nil, s)
	slices.Sort(t)
	return slices.Compact(t)
}

// calcSml is pg_trgm's CALCSML, in float4.
func calcSml(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// similarity is pg_trgm's similarity(a, b) on their uniqueTrigrams (cnt_sml, exact).
func similarity(a, b []string) float32 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	return calcSml(commonTrigrams(a, b), len(a), len(b))
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

// wordSimilarity is pg_trgm's word_similarity(query, text) on their trigrams (appendTrigrams of
// each): the greatest similarity of the query's trigrams to a continuous extent of the text's.
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

// iterateWordSimilarity is pg_trgm's iterate_word_similarity for word_similarity (neither
// strict nor only checking the threshold, which gives the same answer to <%): seq is the
// identity of each trigram of the text in order, found says which identities are trigrams of the
// query, ulen1 counts the query's distinct trigrams, lastpos is scratch as long as found.
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
		smlrCur := calcSml(count, ulen1, ulen2)
		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if smlrTmp := calcSml(tmpCount, ulen1, tmpUlen2); smlrTmp > smlrCur {
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

// A tsvector position as PostgreSQL stores it (WordEntryPos): the weight in the two high bits
// (3 A, 2 B, 1 C, 0 D), the position in the others.
type tsPos uint16

func (p tsPos) weight() float32 { return rankWeights[p>>14] }
func (p tsPos) at() int32       { return int32(p & 0x3fff) }

// rankWeights are ts_rank's default weights of D, C, B and A.
var rankWeights = [4]float32{0.1, 0.2, 0.4, 1.0}

// tsLexeme is one lexeme of a tsvector with its positions.
type tsLexeme struct {
	text string
	pos  []tsPos
}

// parseTSVector reads a tsvector's text form ('lex':1A,2 'other':3B), whose lexemes come
// sorted as PostgreSQL sorts them.
func parseTSVector(s string) ([]tsLexeme, error) {
	var out []tsLexeme
	err := scanTSVector(s, nil, func(lex string, pos []tsPos) {
		l := tsLexeme{text: strings.Clone(lex)}
		if len(pos) > 0 {
			l.pos = slices.Clone(pos)
		}
		out = append(out, l)
	})
	return out, err
}

// scanTSVector calls fn with each lexeme of a tsvector's text form and its positions, in
// order; the lexeme may be cut from s, the positions are buf's (reused). Nothing is allocated
// but for a lexeme with a quote or backslash.
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

// wordDistance is tsrank.c's word_distance, in float4.
func wordDistance(w int32) float32 {
	if w > 100 {
		return 1e-30
	}
	return float32(1.0 / (1.005 + 0.05*math.Exp(float64(float32(w))/1.5-2)))
}

// tsRank is PostgreSQL's ts_rank(vector, query), default weights and no normalisation, for a
// query of prefix words joined by & (to_tsquery 'a:* & b:*'). items holds, for each distinct
// word in PostgreSQL's order (sorted, each once), the positions of every lexeme of the vector it
// matches, in lexeme order (none: nil); and says the query has more than one word (before
// duplicates are removed): an AND at its top.
func tsRank(items [][][]tsPos, and bool) float32 {
	var res float32
	if and && len(items) >= 2 {
		res = rankAnd(items)
	} else {
		res = rankOr(items)
	}
	if res < 0 {
		res = 1e-20
	}
	return res
}

// rankOr is tsrank.c's calc_rank_or.
func rankOr(items [][][]tsPos) float32 {
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

// rankAnd is tsrank.c's calc_rank_and: the proximity of the words' positions, each pair of an
// entry of a word with the last entry of each word before it.
func rankAnd(items [][][]tsPos) float32 {
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
						curw := float32(math.Sqrt(float64(pl.weight() * pp.weight() * wordDistance(dist))))
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

package postgres

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
)

// A tsvector's text form: quotes and backslashes escaped, weights A to D (none is D), a word
// without places; and what is not one.
func TestSearchWordsReadATSVector(t *testing.T) {
	var r searchWords
	words, err := r.read(`'a''b':1A,3 'back\\slash':2B 'c':4C,16383 'nopos'`)
	require.NoError(t, err)
	require.Equal(t, []catalogue.Word{
		{Text: "a'b", Places: []catalogue.Place{catalogue.PlaceAt(1, catalogue.WeightA), catalogue.PlaceAt(3, catalogue.WeightD)}},
		{Text: `back\slash`, Places: []catalogue.Place{catalogue.PlaceAt(2, catalogue.WeightB)}},
		{Text: "c", Places: []catalogue.Place{catalogue.PlaceAt(4, catalogue.WeightC), catalogue.PlaceAt(catalogue.MaxPosition, catalogue.WeightD)}},
		{Text: "nopos"},
	}, words)
	require.Equal(t, catalogue.Place(1|3<<14), words[0].Places[0], "weight A in the high bits")
	require.Equal(t, catalogue.Place(16383), words[2].Places[1])
	again, err := r.read(`'x':5A`)
	require.NoError(t, err)
	require.Equal(t, []catalogue.Word{{Text: "x", Places: []catalogue.Place{catalogue.PlaceAt(5, catalogue.WeightA)}}}, again, "a reader reused")
	owned, err := readSearchWords(`'a':1A 'b':2B`)
	require.NoError(t, err)
	_, err = r.read(`'c':3C 'd':4D`)
	require.NoError(t, err)
	require.Equal(t, []catalogue.Word{{Text: "a", Places: []catalogue.Place{catalogue.PlaceAt(1, catalogue.WeightA)}},
		{Text: "b", Places: []catalogue.Place{catalogue.PlaceAt(2, catalogue.WeightB)}}}, owned, "words of their own")
	for _, bad := range []string{`'open`, `bare`, `'a':`, `'a':x`} {
		_, err = r.read(bad)
		require.Error(t, err, bad)
	}
}

// A vector the load cannot read leaves the snapshot's first pass failed, naming the reward and
// why.
func TestAddSearchTextOfAnUnreadableVector(t *testing.T) {
	texts := catalogue.NewSearchTexts(2)
	var r searchWords
	addSearchText(texts, &r, db.CatalogueSnapshotSearchRow{ID: uuid.New(), SearchName: "gift", SearchVector: `'gift':1A`, LowerName: "gift"})
	require.NoError(t, texts.Err())
	bad := uuid.New()
	addSearchText(texts, &r, db.CatalogueSnapshotSearchRow{ID: bad, SearchName: "x", SearchVector: `'unclosed`, LowerName: "x"})
	require.ErrorContains(t, texts.Err(), "unclosed")
	require.ErrorContains(t, texts.Err(), bad.String())
}

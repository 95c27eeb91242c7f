package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The store scenarios find every statement they run, each called with as many arguments as it
// has parameters, in the sqlc code and in the storage tests' reference (referenceQueryFile).
func TestStoreQueriesAreFound(t *testing.T) {
	t.Parallel()
	queries, err := loadStoreQueries()
	require.NoError(t, err)
	want := append([]string{}, referenceQueries...)
	for _, names := range storeQueryFiles {
		want = append(want, names...)
	}
	for _, name := range want {
		q, ok := queries[name]
		require.True(t, ok, name)
		require.NotEmpty(t, q.params, name)
		require.Equal(t, q.paramCount(), len(q.params), name)
	}
	require.Equal(t, []string{"Ord", "CoinID", "CoinsPerUnit", "Q", "Fuzzy", "Tsq", "GameID", "Now", "Country", "Brands",
		"BrandsLower", "Categories", "CategoriesLower", "Off", "Lim"}, queries["catalogueSearch"].params)
}

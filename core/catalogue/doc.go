// Package catalogue owns what players can buy: categories, brands and rewards shared by every
// game of the deployment, with their money prices; coupon code pools; products that feed
// touchpoints; what each game hides and the coin prices it sets; and the rules that turn a
// money price into a coin price, decide what a game's players see, and order it.
//
// # The read model
//
// Each instance keeps a read model of the catalogue (ReadModel): the active rewards of active
// brands, categories, each game's hidden rewards and coin prices, and order counts, as an
// immutable Snapshot replaced whole, so a request never waits for a load. It is the one
// implementation of what players see: GET /rewards (every filter and contentLogic), search, a
// reward's fetch, the redirection link and the brand and category metadata read it, and nothing
// else; sorted views per game, coin, filters and order are sorted in Compare's order and kept
// until the first end date among them. A failed load keeps the last snapshot. The storage serves
// a purchase the read model cannot plan (Repo.GetVisibleWithCoin).
//
// A row catalogue_version is bumped by statement triggers on the catalogue's tables, which also
// pg_notify the channel catalogue_changed. A change made through an instance's catalogue service
// is loaded before its call returns (read-your-writes); the other instances load it on the
// notification (LISTEN) or, when that is lost with its connection, at their version check every
// VersionCheckInterval. Order counts (TRENDING, most-ordered) are read again every
// OrderCountsInterval.
//
// A change of a few rewards or of what games changed of them (a game's hiding and coin prices; a
// reward's rename, price, end date or deactivation; a new reward), the changes operators and
// studios make most, is loaded alone: each step of the version records in catalogue_changes (the
// last 1,000 steps) which rewards its statement changed (statement triggers with transition
// tables), so a load reads those rows, their search texts and their games' settings, and the new
// snapshot keeps every other entry. Its lists' views are the last snapshot's, carried over rather
// than sorted anew (Snapshot.carryViews: the unchanged rewards keep their order, the changed ones
// are placed by binary search in Compare's order, the gone ones left out, and so are the rewards
// whose hiding or prices a game changed, in that game's views; not for deduped lists, touchpoint
// rules, or a change of both rewards and every game's settings at once, which sort again when
// asked for). A change of a brand or category, more rewards than half the snapshot, or steps no
// longer in the log load the whole catalogue, with two snapshots in memory meanwhile.
//
// The coin that prices a list or fetch comes from coins.Values and a page's pool stock (free
// codes) from PoolStock, so a list costs no round trip while they are fresh (their bounds and
// what drops them are in the cache table of package app). A purchase checks stock and price in
// its own transaction whatever a list showed.
//
// Touchpoint trees hydrate their rewards from the same snapshot (package app's treeReads, the
// touchpoints.Reads port): STATIC rewards by id, DYNAMIC rewards rules from a sorted view in the
// order of the SQL rule query (Snapshot.Rank, tested against it), in stock through PoolStock.
// Rewards the snapshot does not hold (inactive ones) and products are read from PostgreSQL, and
// so is everything when the read model fails.
//
// # Search
//
// Search reads the same snapshot, with an index of our own rather than a search library
// (readmodel_search.go), under the rule textmatch.go states: every word of the search a prefix
// of a word of the names, descriptions or categories, ranked by where and how close the words
// are found, and, when that finds nothing, the names most like the search by trigrams (a typo).
// The storage keeps each reward's words with their places and weights (SearchText, made by the
// database when a reward or brand is written); an inverted index of those words (a prefix is a
// range of the sorted words) and of the names' trigrams (a name can reach the 0.6 threshold only
// with 60% of the query's trigrams) finds the candidates. The storage tests hold the rule to a
// reference in SQL (adapters/postgres catalogue_reference_test.go) on random searches (words,
// prefixes, several words, exact names, typos, nonsense; every sortBy, brand and category
// filters, pages), relevance equal to the last bit.
//
// The index is built in the background once a new snapshot serves everything else; a search
// waits for it (after a whole load, while every reward is indexed; after a change of some
// rewards, while those are), and fails, saying why, when it cannot be built. A search's sorted
// matches are kept per snapshot (maxSearchViews searches, at most maxSearchViewIDs reward
// indexes), and each game's brand and category counts once per snapshot.
//
// After a change of a few rewards the search index is an overlay (readmodel_overlay.go): the
// last snapshot's index stands as the base, the changed and gone rewards' entries in it masked,
// and only the changed rewards (with those the last overlay held) are indexed anew; a search asks
// both and merges their matches, which gives exactly a whole index's answers, since textRank and
// wordSimilarity read a reward's own texts alone and the matches are then sorted in a total
// order. Making the whole index again at each change would hold a second index beside the first
// through every rename. Once the masked and overlaid rewards pass 1/16 of the snapshot, the next
// change makes one index of every reward again, from the base's and the overlay's entries.
//
// # Memory of a large catalogue
//
// A load keeps one copy of each text, asset set, translation set, country list and face-value
// list its rewards share (a synced brand's terms, how to redeem and logo), and makes room for
// every reward at once. Each slice of search texts goes into the index's first pass as it is
// read (SearchTexts), so the texts of the whole catalogue are never held at once; the index keeps
// posting lists and names' trigrams as uvarints (differences, mostly one byte) and a lexeme's
// positions by their one-byte count. Most of the live heap is the read model, which makes no
// garbage between loads; package app's gctuner.go sets the collector's headroom for it.
package catalogue

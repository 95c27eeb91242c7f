package touchpoints

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
)

// treeRepo stores trees by game and name and counts the reads that reach it; during, when set,
// runs inside the next TreeWithCoin, after the tree was read and before it is returned (a
// change that commits while a read is in flight).
type treeRepo struct {
	Repo
	trees map[string]Tree
	reads int
	// decoded counts the reads of TreeWithCoin and TreesByID that answered with the stored
	// tree, not the caller's known copy.
	decoded int
	during  func()
	// askedByID are the ids of each TreesByID; beforeByID, when set, runs inside the next one
	// before it reads.
	askedByID  [][]uuid.UUID
	beforeByID func()
}

func (r *treeRepo) LockGame(context.Context, uuid.UUID) error { return nil }
func (r *treeRepo) RewardTypes(context.Context, []uuid.UUID) (map[uuid.UUID]catalogue.Type, error) {
	return nil, nil
}
func (r *treeRepo) ExistingProducts(context.Context, []string) ([]string, error) { return nil, nil }

// Lookup finds nothing: one empty answer per query.
func (r *treeRepo) Lookup(_ context.Context, l Lookup) (Found, error) {
	return Found{BestRewards: make([][]RewardItem, len(l.BestRewards)), BestProducts: make([][]catalogue.Product, len(l.BestProducts))}, nil
}

// listed is the game's trees in list order.
func (r *treeRepo) listed(gameID uuid.UUID) []Tree {
	var out []Tree
	for _, t := range r.trees {
		if t.GameID == gameID {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b Tree) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), slices.Compare(a.ID[:], b.ID[:]))
	})
	return out
}

func (r *treeRepo) TreeSizes(_ context.Context, gameID uuid.UUID, n int) ([]TreeSize, int, error) {
	list := r.listed(gameID)
	var out []TreeSize
	for _, t := range list[:min(n, len(list))] {
		out = append(out, TreeSize{ID: t.ID, Name: t.Name, Served: t.Served})
	}
	return out, len(list), nil
}

func (r *treeRepo) TreesByID(_ context.Context, gameID uuid.UUID, ids []uuid.UUID, known map[uuid.UUID]Tree) ([]Tree, error) {
	r.askedByID = append(r.askedByID, ids)
	if before := r.beforeByID; before != nil {
		r.beforeByID = nil
		before()
	}
	out := slices.DeleteFunc(r.listed(gameID), func(t Tree) bool { return !slices.Contains(ids, t.ID) })
	for i, t := range out {
		k, ok := known[t.ID]
		out[i] = r.answer(t, &k, ok)
	}
	return out, nil
}

// answer is the caller's copy when it is the stored tree's version, else the stored tree.
func (r *treeRepo) answer(stored Tree, known *Tree, ok bool) Tree {
	if ok && known.ID == stored.ID && known.UpdatedAt.Equal(stored.UpdatedAt) {
		return *known
	}
	r.decoded++
	return stored
}

func (r *treeRepo) UpsertTree(_ context.Context, t Tree) (Tree, bool, error) {
	_, existed := r.trees[t.Name]
	if existed {
		t.ID = r.trees[t.Name].ID
	} else {
		t.ID = uuid.New()
	}
	t.UpdatedAt = time.Now()
	r.trees[t.Name] = t
	return t, !existed, nil
}

func (r *treeRepo) DeleteTree(_ context.Context, _ uuid.UUID, name string) error {
	if _, ok := r.trees[name]; !ok {
		return ErrTouchpointNotFound
	}
	delete(r.trees, name)
	return nil
}

func (r *treeRepo) TreeWithCoin(_ context.Context, gameID uuid.UUID, key TreeKey, coinID, _ *uuid.UUID, known *Tree) (Tree, *Coin, error) {
	r.reads++
	var coin *Coin
	if coinID != nil {
		coin = &Coin{ID: *coinID, Name: "Gems", CoinsPerUnit: 10}
	}
	t, ok := r.trees[key.Name]
	if key.ID != uuid.Nil {
		ok = false
		for _, s := range r.trees {
			if s.ID == key.ID {
				t, ok = s, true
			}
		}
	}
	if during := r.during; during != nil {
		r.during = nil
		during()
	}
	if !ok || t.GameID != gameID {
		return Tree{}, nil, ErrTouchpointNotFound
	}
	return r.answer(t, known, known != nil), coin, nil
}

// coinValues is what one coin of one game is worth.
type coinValues struct {
	game, coin uuid.UUID
	n          int64
}

func (v *coinValues) CoinsPerUnit(_ context.Context, gameID, coinID uuid.UUID) (int64, error) {
	if gameID != v.game || coinID != v.coin {
		return 0, coins.ErrCoinNotFound
	}
	return v.n, nil
}

// A tree read without a player token reads the storage once a second at most (the coin's value
// from CoinValues), yet every change made through the service — a new version, a deletion, even
// one that commits while a read is in flight — is served at the next read; a tree not found is
// not kept. Reads with a player token read the storage every time (the balance).
func TestTreeReadsWithoutAPlayerAreKeptUntilAChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	game, coin := uuid.New(), uuid.New()
	repo := &treeRepo{trees: map[string]Tree{}}
	values := &coinValues{game: game, coin: coin, n: 10}
	s := NewService(repoOf{repo}, Config{Currency: "INR", CoinValues: values, Audit: testAudit()})
	put := func(title string) Tree {
		t.Helper()
		tr, _, err := s.PutTree(ctx, game, "Home", []Node{{DataType: DataAsset, Title: []TextItem{{Text: title}}}})
		require.NoError(t, err)
		return tr
	}
	q := TreeRequest{GameID: game, CoinID: &coin}
	title := func(q TreeRequest) string {
		t.Helper()
		tr, err := s.TreeByName(ctx, q, "Home")
		require.NoError(t, err)
		return tr.Nodes[0].Title[0].Text
	}

	_, err := s.TreeByName(ctx, q, "Home")
	require.Equal(t, ErrTouchpointNotFound.Code, errs.CodeOf(err))
	stored := put("One")
	require.Equal(t, "One", title(q), "a tree not found was not kept")
	reads := repo.reads
	require.Equal(t, "One", title(q))
	byID, err := s.TreeByID(ctx, q, stored.ID)
	require.NoError(t, err)
	require.Equal(t, "One", byID.Nodes[0].Title[0].Text)
	byID, err = s.TreeByID(ctx, q, stored.ID)
	require.NoError(t, err)
	require.Equal(t, reads+1, repo.reads, "by name kept, by id read once")

	player := uuid.New()
	withPlayer := TreeRequest{GameID: game, CoinID: &coin, PlayerID: &player}
	require.Equal(t, "One", title(withPlayer))
	require.Equal(t, "One", title(withPlayer))
	require.Equal(t, reads+3, repo.reads, "a read with a player reads the storage every time")

	other := uuid.New()
	_, err = s.TreeByName(ctx, TreeRequest{GameID: game, CoinID: &other}, "Home")
	require.Equal(t, coins.ErrCoinNotFound.Code, errs.CodeOf(err), "the coin is checked although the tree is kept")
	_, err = s.TreeByName(ctx, TreeRequest{GameID: uuid.New(), CoinID: &coin}, "Home")
	require.Error(t, err, "another game's read is its own")

	put("Two")
	// A change that commits while a read is in flight: the read answers what it read, but
	// does not keep it.
	repo.during = func() { put("Three") }
	require.Equal(t, "Two", title(q))
	require.Equal(t, "Three", title(q))
	byID, err = s.TreeByID(ctx, q, stored.ID)
	require.NoError(t, err)
	require.Equal(t, "Three", byID.Nodes[0].Title[0].Text)

	require.NoError(t, s.DeleteTree(ctx, game, "Home"))
	_, err = s.TreeByName(ctx, q, "Home")
	require.Equal(t, ErrTouchpointNotFound.Code, errs.CodeOf(err))
	_, err = s.TreeByID(ctx, q, stored.ID)
	require.Equal(t, ErrTouchpointNotFound.Code, errs.CodeOf(err))
}

// Reads that do ask the storage (a player's, a page of trees, a read past authcache.TTL) hand it
// the cached tree, so an unchanged tree is neither read nor decoded again; a changed one is
// served at once.
func TestTreeReadsHandTheStorageTheCachedTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	game, coin, player := uuid.New(), uuid.New(), uuid.New()
	repo := &treeRepo{trees: map[string]Tree{}}
	s := NewService(repoOf{repo}, Config{Currency: "INR", CoinValues: &coinValues{game: game, coin: coin, n: 10}, Audit: testAudit()})
	put := func(title string) Tree {
		t.Helper()
		tr, _, err := s.PutTree(ctx, game, "Home", []Node{{DataType: DataAsset, Title: []TextItem{{Text: title}}}})
		require.NoError(t, err)
		return tr
	}
	withPlayer := TreeRequest{GameID: game, CoinID: &coin, PlayerID: &player}
	title := func() string {
		t.Helper()
		tr, err := s.TreeByName(ctx, withPlayer, "Home")
		require.NoError(t, err)
		return tr.Nodes[0].Title[0].Text
	}
	stored := put("One")
	require.Equal(t, "One", title())
	require.Equal(t, 1, repo.decoded)
	require.Equal(t, "One", title())
	require.Equal(t, "One", title())
	require.Equal(t, []int{3, 1}, []int{repo.reads, repo.decoded}, "read every time, decoded once")

	list, err := s.Trees(ctx, TreeRequest{GameID: game}, 1, 10)
	require.NoError(t, err)
	require.Len(t, list.Trees, 1)
	require.Equal(t, 2, repo.decoded, "the page reads by id, a key of its own")
	_, err = s.Trees(ctx, TreeRequest{GameID: game}, 1, 10)
	require.NoError(t, err)
	byID, err := s.TreeByID(ctx, withPlayer, stored.ID)
	require.NoError(t, err)
	require.Equal(t, "One", byID.Nodes[0].Title[0].Text)
	require.Equal(t, 2, repo.decoded, "the page and the read by id reuse the page's tree")

	put("Two")
	require.Equal(t, "Two", title())
	require.Equal(t, 3, repo.decoded)
	repo.during = func() { put("Three") }
	require.Equal(t, "Two", title(), "a change commits while the read is in flight")
	require.Equal(t, "Three", title())
	require.Equal(t, "Three", title())
	require.Equal(t, 4, repo.decoded, "the read in flight kept nothing; the next read decoded the new version once")
}

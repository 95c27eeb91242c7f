package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/partner"
)

// An order's gift card (partner.Service.Brand: one brand by its code) is found on a prepared
// statement whose generic plan PostgreSQL keeps, in a catalogue of a deployment's size: the
// brand list's statement, whose generic plan ranks the whole catalogue, was planned again at
// every order.
func TestPartnerBrandKeepsItsPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupOrders(t)
	b.coupon(t, 10, 0) // the brand CAFE and a reward of it, which the gift cards below copy
	_, err := b.pool.Exec(ctx, `DO $$
DECLARE brand_cols text; reward_cols text;
BEGIN
	SELECT string_agg(quote_ident(column_name), ', ') INTO brand_cols FROM information_schema.columns
	WHERE table_schema = current_schema() AND table_name = 'catalogue_brands' AND is_generated = 'NEVER'
	  AND column_name NOT IN ('code', 'name', 'provider_code');
	SELECT string_agg(quote_ident(column_name), ', ') INTO reward_cols FROM information_schema.columns
	WHERE table_schema = current_schema() AND table_name = 'catalogue_rewards' AND is_generated = 'NEVER'
	  AND column_name NOT IN ('id', 'brand_code', 'type', 'provider_product_id');
	EXECUTE format('INSERT INTO catalogue_brands (code, name, provider_code, %1$s)
		SELECT ''GC'' || g, ''Gift card '' || g, ''PC'' || g, %1$s FROM catalogue_brands, generate_series(1, 2000) g
		WHERE code = ''CAFE''', brand_cols);
	EXECUTE format('INSERT INTO catalogue_rewards (id, brand_code, type, provider_product_id, %1$s)
		SELECT gen_random_uuid(), ''GC'' || g, ''GIFT_CARD'', ''P-'' || g, %1$s FROM catalogue_rewards, generate_series(1, 2000) g
		WHERE brand_code = ''CAFE''', reward_cols);
END $$`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, "ANALYZE catalogue_brands, catalogue_rewards")
	require.NoError(t, err)

	cfg := b.pool.Config().Copy()
	cfg.MaxConns = 1 // every lookup on one connection, with its prepared statements
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	repo := postgres.NewPartnerStore(postgres.NewDB(pool)).Repo()
	for range 10 {
		one, found, err := repo.Brand(ctx, "GC1234")
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, "GC1234", one.Code)
		require.Equal(t, "Gift card 1234", one.Name)
		require.Equal(t, "P-1234", one.ProviderProduct)
	}
	// The same brand as the list's statement finds it.
	one, _, err := repo.Brand(ctx, "GC1234")
	require.NoError(t, err)
	found, total, err := repo.Brands(ctx, partner.BrandQuery{Search: "Gift card 1234", Limit: 10})
	require.NoError(t, err)
	require.Equal(t, int64(1), total)
	require.Equal(t, found, []partner.Brand{one})
	_, known, err := repo.Brand(ctx, "NOPE")
	require.NoError(t, err)
	require.False(t, known, "an unknown brand")

	var generic int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0) FROM pg_prepared_statements
		WHERE statement LIKE '-- name: PartnerBrand %'`).Scan(&generic))
	require.GreaterOrEqual(t, generic, int64(5), "runs of the brand lookup's kept plan")
}

-- Each tree keeps a bound on the nodes it serves, DYNAMIC nodes expanded (core/touchpoints
-- ServedSize, written with the tree), so that GET /touchpoints can cut its pages at 5,000 served
-- nodes from these numbers alone, without reading or decoding any tree that is not on the page.
-- Trees stored before hold 2,000, the most any write has accepted (MaxServedNodes, TREE_TOO_LARGE),
-- so the bound is true for them too; a tree written again gets its own.
--
-- A constant default is stored in the catalog, not in each row: adding the column rewrites
-- nothing and holds the table's lock only for that moment.

-- +goose Up
ALTER TABLE touchpoint_trees ADD COLUMN served_size integer NOT NULL DEFAULT 2000;

-- +goose Down
ALTER TABLE touchpoint_trees DROP COLUMN served_size;

-- A coin event's sequence: per (player, coin), 1 for the first movement and one more with each
-- movement after, so that a receiver can order a player's events and see one missing.
--
-- The counter lives on the balance row, which every movement already locks and updates
-- (CoinsApplyMovement): the movement takes the next number in its own statement, the movements
-- of one player's coin are numbered in the order they commit, without gaps (a movement that
-- rolls back takes its number back with it), and other players never wait for each other.
--
-- Existing events are numbered here in the order they happened (created_at, then id), and each
-- balance's counter starts at its number of events, so that the next movement goes on from
-- there. This rewrites coin_events once, in this migration's transaction.

-- +goose Up
ALTER TABLE balances ADD COLUMN movements bigint NOT NULL DEFAULT 0 CHECK (movements >= 0);
ALTER TABLE coin_events ADD COLUMN sequence bigint;

UPDATE coin_events e SET sequence = n.seq
FROM (SELECT id, row_number() OVER (PARTITION BY player_id, coin_id ORDER BY created_at, id) AS seq
      FROM coin_events) n
WHERE e.id = n.id;

UPDATE balances b SET movements = c.n
FROM (SELECT player_id, coin_id, count(*) AS n FROM coin_events GROUP BY player_id, coin_id) c
WHERE b.player_id = c.player_id AND b.coin_id = c.coin_id;

ALTER TABLE coin_events ALTER COLUMN sequence SET NOT NULL,
    ADD CONSTRAINT coin_events_sequence_check CHECK (sequence >= 1);

-- +goose Down
ALTER TABLE coin_events DROP COLUMN sequence;
ALTER TABLE balances DROP COLUMN movements;

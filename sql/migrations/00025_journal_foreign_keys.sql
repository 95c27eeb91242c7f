-- Fewer foreign-key checks per coin movement, and stronger ones.
--
-- Each coin movement inserts a journal entry and a coin event in one statement. Their foreign
-- keys were checked one by one after it: the entry's game, player and coin, and the event's
-- game, transaction, player and coin, seven lookups that each lock the row they find (FOR KEY
-- SHARE). The game's and the coin's rows are the same for every movement of a game, so
-- concurrent movements shared those locks (multixacts). The checks were about half of the
-- statement's execution in EXPLAIN ANALYZE, and PostgreSQL ran the statement 5-37% faster
-- without the redundant ones (pgbench of the statement alone, 8 clients, six A/B pairs).
--
-- Now the journal entry's coin is checked with its game, (coin_id, game_id), and its player
-- with its game and environment, (player_id, game_id, environment): two checks where there were
-- three, and they also hold what the three did not, that the coin and the player are the
-- entry's game's and the player is of the entry's environment. The game is no longer locked.
-- The event keeps its transaction's key; its game, player and coin are copies of the
-- transaction's, written by the same statement (CoinsApplyMovement, the one writer of both), so
-- their own three checks go.
--
-- Locks: dropping and adding keys locks games, players, coins, the journal and the events until
-- this transaction commits, and the two unique constraints build their indexes meanwhile, so
-- writes to those tables wait for the players index's build (a scan of players). The new keys
-- are added NOT VALID, which checks new rows only; migration 00026 validates them in a
-- transaction of its own, which lets movements go on while the journal is scanned. (Building the
-- indexes CONCURRENTLY beforehand would not wait: an instance waiting for the migration lock
-- (Migrate) holds a snapshot that CREATE INDEX CONCURRENTLY waits for, and the two never end.)

-- +goose Up
ALTER TABLE coins ADD CONSTRAINT coins_id_game_key UNIQUE (id, game_id);
ALTER TABLE players ADD CONSTRAINT players_id_game_environment_key UNIQUE (id, game_id, environment);
ALTER TABLE coin_transactions
    DROP CONSTRAINT coin_transactions_game_id_fkey,
    DROP CONSTRAINT coin_transactions_player_id_fkey,
    DROP CONSTRAINT coin_transactions_coin_id_fkey,
    ADD CONSTRAINT coin_transactions_coin_game_fkey FOREIGN KEY (coin_id, game_id)
        REFERENCES coins (id, game_id) NOT VALID,
    ADD CONSTRAINT coin_transactions_player_game_fkey FOREIGN KEY (player_id, game_id, environment)
        REFERENCES players (id, game_id, environment) NOT VALID;
ALTER TABLE coin_events
    DROP CONSTRAINT coin_events_game_id_fkey,
    DROP CONSTRAINT coin_events_player_id_fkey,
    DROP CONSTRAINT coin_events_coin_id_fkey;

-- +goose Down
ALTER TABLE coin_events
    ADD CONSTRAINT coin_events_game_id_fkey FOREIGN KEY (game_id) REFERENCES games (id),
    ADD CONSTRAINT coin_events_player_id_fkey FOREIGN KEY (player_id) REFERENCES players (id),
    ADD CONSTRAINT coin_events_coin_id_fkey FOREIGN KEY (coin_id) REFERENCES coins (id);
ALTER TABLE coin_transactions
    DROP CONSTRAINT coin_transactions_coin_game_fkey,
    DROP CONSTRAINT coin_transactions_player_game_fkey,
    ADD CONSTRAINT coin_transactions_game_id_fkey FOREIGN KEY (game_id) REFERENCES games (id),
    ADD CONSTRAINT coin_transactions_player_id_fkey FOREIGN KEY (player_id) REFERENCES players (id),
    ADD CONSTRAINT coin_transactions_coin_id_fkey FOREIGN KEY (coin_id) REFERENCES coins (id);
ALTER TABLE players DROP CONSTRAINT players_id_game_environment_key;
ALTER TABLE coins DROP CONSTRAINT coins_id_game_key;

-- No query reads coin events by game and time (deliveries carry their own index), and every
-- coin movement paid to maintain this index.

-- +goose Up
DROP INDEX coin_events_game_idx;

-- +goose Down
CREATE INDEX coin_events_game_idx ON coin_events (game_id, environment, created_at);

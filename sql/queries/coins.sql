-- name: CoinsCreate :one
INSERT INTO coins (game_id, name, image_url) VALUES ($1, $2, $3) RETURNING *;

-- name: CoinsListByGame :many
SELECT * FROM coins WHERE game_id = $1 ORDER BY created_at, id;

-- name: CoinsGet :one
SELECT * FROM coins WHERE id = $1 AND game_id = $2;

-- name: AuditAppend :one
-- Appends an entry. With no studio_id, the entry takes the studio of its game; with neither,
-- the NOT NULL of studio_id refuses it.
INSERT INTO audit_entries (studio_id, game_id, actor_kind, actor_id, actor_member_id, actor_name, ip, user_agent,
                           action, target_type, target_id, environment, details)
VALUES (coalesce(sqlc.narg(studio_id)::uuid, (SELECT g.studio_id FROM games g WHERE g.id = sqlc.narg(game_id)::uuid)),
        sqlc.narg(game_id)::uuid, @actor_kind, sqlc.narg(actor_id)::uuid, sqlc.narg(actor_member_id)::uuid, @actor_name,
        @ip, @user_agent, @action, @target_type, @target_id, @environment, @details)
RETURNING id, studio_id, at;

-- name: AuditList :many
-- A studio's entries, newest first: at or after from_at and before to_at when given, of one
-- member (actor_member_id) or action when given, and older than the entry before_id when given
-- (an id of another studio, or unknown, selects nothing).
SELECT * FROM audit_entries e
WHERE e.studio_id = @studio_id
  AND (sqlc.narg(from_at)::timestamptz IS NULL OR e.at >= sqlc.narg(from_at)::timestamptz)
  AND (sqlc.narg(to_at)::timestamptz IS NULL OR e.at < sqlc.narg(to_at)::timestamptz)
  AND (sqlc.narg(member_id)::uuid IS NULL OR e.actor_member_id = sqlc.narg(member_id)::uuid)
  AND (@action::text = '' OR e.action = @action::text)
  AND (sqlc.narg(before_id)::uuid IS NULL OR (e.at, e.id) < (
        SELECT b.at, b.id FROM audit_entries b WHERE b.id = sqlc.narg(before_id)::uuid AND b.studio_id = @studio_id))
ORDER BY e.at DESC, e.id DESC
LIMIT @max_rows;

-- name: MembersInsert :one
INSERT INTO studio_members (studio_id, email, role, status) VALUES ($1, $2, $3, $4) RETURNING *;

-- name: MembersGet :one
SELECT * FROM studio_members WHERE id = $1;

-- name: MembersByEmail :many
SELECT * FROM studio_members WHERE email = lower(@email::text) ORDER BY created_at, id;

-- name: MembersList :many
SELECT * FROM studio_members WHERE studio_id = $1 ORDER BY created_at, id;

-- name: MembersLock :many
-- Locked in id order, the same in every transaction, so that two of them never deadlock.
SELECT * FROM studio_members WHERE studio_id = $1 ORDER BY id FOR UPDATE;

-- name: MembersActivate :one
UPDATE studio_members SET name = $2, password_hash = $3, status = 'ACTIVE' WHERE id = $1 RETURNING *;

-- name: MembersSetRole :one
UPDATE studio_members SET role = $2 WHERE id = $1 RETURNING *;

-- name: MembersSetPassword :execrows
UPDATE studio_members SET password_hash = $2 WHERE id = $1;

-- name: MembersSetTOTP :execrows
UPDATE studio_members SET totp_secret = $2, totp_pending = $3 WHERE id = $1;

-- name: MembersDelete :execrows
DELETE FROM studio_members WHERE id = $1;

-- name: MembersInsertLink :exec
INSERT INTO member_links (token_hash, member_id, purpose, expires_at) VALUES ($1, $2, $3, $4);

-- name: MembersUseLink :one
UPDATE member_links SET used_at = @now::timestamptz
WHERE token_hash = @token_hash AND purpose = @purpose AND used_at IS NULL AND expires_at > @now::timestamptz
RETURNING member_id;

-- name: MembersInsertSession :exec
INSERT INTO member_sessions (id, member_id, token_hash, created_at, last_seen_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6);

-- name: MembersFindSession :one
SELECT * FROM member_sessions WHERE token_hash = $1;

-- name: MembersTouchSession :exec
UPDATE member_sessions SET last_seen_at = $2 WHERE id = $1;

-- name: MembersDeleteSession :exec
DELETE FROM member_sessions WHERE id = $1;

-- name: MembersDeleteSessions :exec
DELETE FROM member_sessions WHERE member_id = $1;

-- name: MembersInsertToken :exec
INSERT INTO studio_access_tokens (id, studio_id, member_id, name, role, token_hash, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: MembersFindToken :one
SELECT * FROM studio_access_tokens WHERE token_hash = $1;

-- name: MembersGetToken :one
SELECT * FROM studio_access_tokens WHERE id = $1;

-- name: MembersListTokens :many
SELECT * FROM studio_access_tokens WHERE studio_id = $1 ORDER BY created_at, id;

-- name: MembersTouchToken :exec
UPDATE studio_access_tokens SET last_used_at = $2 WHERE id = $1;

-- name: MembersDeleteToken :execrows
DELETE FROM studio_access_tokens WHERE id = $1;

-- name: MembersLockSignIn :exec
-- A transaction-scoped advisory lock on the email's hash: sign-ins of one email count their
-- failures one at a time.
SELECT pg_advisory_xact_lock(hashtextextended('sign-in:' || @email::text, 0));

-- name: MembersSignInFailures :many
SELECT failed_at FROM sign_in_failures WHERE email = $1 AND failed_at >= $2 ORDER BY failed_at;

-- name: MembersAddSignInFailure :exec
INSERT INTO sign_in_failures (email, failed_at) VALUES ($1, $2);

-- name: MembersClearSignInFailures :exec
DELETE FROM sign_in_failures WHERE email = $1;

-- name: MembersPruneSignInFailures :exec
DELETE FROM sign_in_failures WHERE failed_at < $1;

-- name: MembersTOTPRequired :one
SELECT coalesce((SELECT require_totp FROM studio_member_settings WHERE studio_id = $1), false)::boolean;

-- name: MembersSetTOTPRequired :exec
INSERT INTO studio_member_settings (studio_id, require_totp) VALUES ($1, $2)
ON CONFLICT (studio_id) DO UPDATE SET require_totp = excluded.require_totp;

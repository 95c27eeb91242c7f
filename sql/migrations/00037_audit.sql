-- The studio's audit log: who changed what in a studio's data, from the console, the studio API
-- or the operator API. Each entry is written in the change's own transaction (core/audit).
--
-- Entries are never changed or deleted: no query updates or deletes them, a trigger refuses
-- UPDATE, DELETE and TRUNCATE, and no retention job reads this table (entries are kept at least
-- a year; removing older ones would be a migration of its own, dropping the trigger). The
-- foreign keys take no action on delete, so a studio or game with entries cannot be removed
-- with them.

-- +goose Up
CREATE TABLE audit_entries (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    studio_id       uuid        NOT NULL REFERENCES studios (id),
    game_id         uuid        REFERENCES games (id),
    -- clock_timestamp(), not now(): entries of one transaction sort in the order written.
    at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor_kind      text        NOT NULL CHECK (actor_kind IN ('member', 'token', 'operator', 'api_key', 'system')),
    -- The member's or token's id; for a token, actor_member_id is its maker. Not foreign keys:
    -- an entry outlives the member or token it names.
    actor_id        uuid,
    actor_member_id uuid,
    actor_name      text        NOT NULL,
    ip              text        NOT NULL DEFAULT '',
    user_agent      text        NOT NULL DEFAULT '',
    action          text        NOT NULL CHECK (action <> ''),
    target_type     text        NOT NULL DEFAULT '',
    target_id       text        NOT NULL DEFAULT '',
    environment     text        NOT NULL DEFAULT '',
    details         jsonb       NOT NULL DEFAULT '{}'
);

-- A studio's log, newest first, and its pages (the Before cursor).
CREATE INDEX audit_entries_studio_idx ON audit_entries (studio_id, at DESC, id DESC);
-- The same, for one member (their own changes and their tokens') or one action.
CREATE INDEX audit_entries_member_idx ON audit_entries (studio_id, actor_member_id, at DESC, id DESC)
    WHERE actor_member_id IS NOT NULL;
CREATE INDEX audit_entries_action_idx ON audit_entries (studio_id, action, at DESC, id DESC);

-- +goose StatementBegin
CREATE FUNCTION audit_entries_unchangeable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit entries are never changed or deleted (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_entries_unchangeable BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_unchangeable();
CREATE TRIGGER audit_entries_untruncatable BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_unchangeable();

-- +goose Down
DROP TABLE audit_entries;
DROP FUNCTION audit_entries_unchangeable();

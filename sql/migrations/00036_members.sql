-- Studio members: people with a role in a studio, how they sign in (argon2id passwords, TOTP,
-- sessions), the links that invite them and reset their passwords, the studio access tokens
-- they make, and the failed sign-ins that throttle guessing.
--
-- Secrets are stored as hashes: the password with argon2id (in PHC form), session tokens,
-- access tokens and link tokens with SHA-256. The TOTP secret must be read back to check codes:
-- the service seals it (AES-GCM) when it is given a key.
--
-- Deleting a member deletes their sessions, links and tokens (ON DELETE CASCADE): a removed
-- member is signed out and their tokens stop working in the same statement.

-- +goose Up
CREATE TABLE studio_members (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    studio_id     uuid        NOT NULL REFERENCES studios (id),
    email         text        NOT NULL CHECK (email = lower(email)),
    name          text        NOT NULL DEFAULT '',
    role          text        NOT NULL CHECK (role IN ('OWNER', 'DEVELOPER', 'VIEWER')),
    status        text        NOT NULL CHECK (status IN ('INVITED', 'ACTIVE')),
    password_hash text        NOT NULL DEFAULT '',
    totp_secret   bytea,
    totp_pending  bytea,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX studio_members_email_idx ON studio_members (studio_id, email);
-- Sign-in finds a person's memberships by email, in any studio.
CREATE INDEX studio_members_by_email_idx ON studio_members (email);

-- Invitation and password reset links, once each: used_at is set by the one use.
CREATE TABLE member_links (
    token_hash bytea       PRIMARY KEY,
    member_id  uuid        NOT NULL REFERENCES studio_members (id) ON DELETE CASCADE,
    purpose    text        NOT NULL CHECK (purpose IN ('invite', 'reset')),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX member_links_member_idx ON member_links (member_id);

CREATE TABLE member_sessions (
    id           uuid        PRIMARY KEY,
    member_id    uuid        NOT NULL REFERENCES studio_members (id) ON DELETE CASCADE,
    token_hash   bytea       NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX member_sessions_member_idx ON member_sessions (member_id);

CREATE TABLE studio_access_tokens (
    id           uuid        PRIMARY KEY,
    studio_id    uuid        NOT NULL REFERENCES studios (id),
    member_id    uuid        NOT NULL REFERENCES studio_members (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    role         text        NOT NULL CHECK (role IN ('OWNER', 'DEVELOPER', 'VIEWER')),
    token_hash   bytea       NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX studio_access_tokens_studio_idx ON studio_access_tokens (studio_id, created_at, id);
CREATE INDEX studio_access_tokens_member_idx ON studio_access_tokens (member_id);

-- Failed sign-ins per email (known to us or not), kept for the throttling window.
CREATE TABLE sign_in_failures (
    email     text        NOT NULL,
    failed_at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_email_idx ON sign_in_failures (email, failed_at);
CREATE INDEX sign_in_failures_at_idx ON sign_in_failures (failed_at);

-- A studio's sign-in policy.
CREATE TABLE studio_member_settings (
    studio_id     uuid    PRIMARY KEY REFERENCES studios (id),
    require_totp  boolean NOT NULL DEFAULT false
);

-- +goose Down
DROP TABLE studio_member_settings;
DROP TABLE sign_in_failures;
DROP TABLE studio_access_tokens;
DROP TABLE member_sessions;
DROP TABLE member_links;
DROP TABLE studio_members;

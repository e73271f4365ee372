-- Platform: organizations, users, memberships, sessions, credentials, activity, notifications,
-- idempotency records, the event log and actor activation epochs.

CREATE TABLE organizations (
    id             text PRIMARY KEY,
    slug           text NOT NULL,
    name           text NOT NULL,
    plan           text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'starter', 'business', 'enterprise')),
    logo           text,
    timezone       text NOT NULL DEFAULT 'UTC',
    date_format    text NOT NULL DEFAULT 'YYYY-MM-DD',
    week_start     text NOT NULL DEFAULT 'monday',
    language       text NOT NULL DEFAULT 'en',
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX organizations_slug_key ON organizations (lower(slug));

CREATE TABLE users (
    id             text PRIMARY KEY,
    email          text NOT NULL,
    name           text NOT NULL,
    image          text,
    password_hash  text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'guest')),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending', 'deactivated')),
    joined_at       timestamptz NOT NULL DEFAULT now(),
    last_active_at  timestamptz,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE sessions (
    token_hash     text PRIMARY KEY,          -- SHA-256 of the cookie value; the value itself is never stored
    user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- API keys and personal access tokens share one table: both are a looked-up prefix plus a bcrypt hash.
CREATE TABLE credentials (
    id              text PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('api_key', 'personal_token')),
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name            text NOT NULL,
    prefix          text NOT NULL,
    secret_hash     text NOT NULL,
    scopes          text[] NOT NULL DEFAULT '{}',
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
    expires_at      timestamptz,
    last_used_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz
);
CREATE INDEX credentials_prefix ON credentials (kind, prefix);
CREATE INDEX credentials_org ON credentials (organization_id, kind, created_at DESC);

CREATE TABLE activity (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    entity_type     text NOT NULL,
    entity_id       text NOT NULL,
    action          text NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}',
    actor_id        text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX activity_org ON activity (organization_id, created_at DESC, id DESC);
CREATE INDEX activity_entity ON activity (organization_id, entity_type, entity_id, created_at DESC, id DESC);

CREATE TABLE notifications (
    id              text PRIMARY KEY,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    organization_id text REFERENCES organizations (id) ON DELETE CASCADE,
    type            text NOT NULL,
    title           text NOT NULL,
    body            text,
    entity_type     text,
    entity_id       text,
    read            boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX notifications_user ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_unread ON notifications (user_id) WHERE NOT read;

CREATE TABLE device_tokens (
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    platform        text NOT NULL CHECK (platform IN ('ios', 'android')),
    token           text NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, platform, organization_id)
);

CREATE TABLE idempotency_keys (
    scope           text NOT NULL,            -- the credential (or session user) the key belongs to
    key             text NOT NULL,
    request_hash    text NOT NULL,
    status          integer,                  -- NULL while the first request is in flight
    response        bytea,
    content_type    text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- The event log: one sequence per stream (board:<id>, kpi:<id>, org:<id>, ...).
CREATE TABLE event_streams (
    stream          text PRIMARY KEY,
    organization_id text NOT NULL,
    last_seq        bigint NOT NULL DEFAULT 0
);

CREATE TABLE events (
    id              text PRIMARY KEY,
    organization_id text NOT NULL,
    stream          text NOT NULL,
    seq             bigint NOT NULL,
    name            text NOT NULL,
    payload         jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (stream, seq)
);
CREATE INDEX events_org ON events (organization_id, created_at);

-- Each activation of an actor takes a new epoch; every commit of that activation checks it (fencing).
CREATE TABLE actor_epochs (
    actor_key       text PRIMARY KEY,
    epoch           bigint NOT NULL
);

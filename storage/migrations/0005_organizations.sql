-- Invitations to join an organization, and the mail outbox (every e-mail the server sends or, with no
-- SMTP configured, only stores).

CREATE TABLE invitations (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email           text NOT NULL,
    role            text NOT NULL CHECK (role IN ('admin', 'member', 'guest')),
    workspace_ids   text[] NOT NULL DEFAULT '{}',
    token_hash      text NOT NULL UNIQUE,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked')),
    invited_by      text REFERENCES users (id) ON DELETE SET NULL,
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX invitations_pending_email ON invitations (organization_id, lower(email)) WHERE status = 'pending';

CREATE TABLE emails (
    id              text PRIMARY KEY,
    organization_id text REFERENCES organizations (id) ON DELETE CASCADE,
    kind            text NOT NULL,
    recipient       text NOT NULL,
    subject         text NOT NULL,
    body            text NOT NULL,
    status          text NOT NULL DEFAULT 'stored' CHECK (status IN ('stored', 'queued', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    sent_at         timestamptz
);
CREATE INDEX emails_recipient ON emails (lower(recipient), created_at DESC);

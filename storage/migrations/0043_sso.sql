-- Per-organization OpenID Connect single sign-on (docs/sign-in.md): one provider per organization,
-- its client secret sealed (actors/kernel/sealing.py), and the sign-ins under way: state, nonce and PKCE
-- verifier kept here for ten minutes, taken once by the callback.
CREATE TABLE sso_configs (
    organization_id      text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    issuer               text NOT NULL,
    client_id            text NOT NULL,
    client_secret_sealed bytea NOT NULL,
    enforce              boolean NOT NULL DEFAULT false,
    allowed_domains      text[] NOT NULL DEFAULT '{}',
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- A session a single sign-on opened is good on that organization's host only: the organization's provider vouches
-- for the e-mail there and nowhere else (its admin chooses the provider). NULL: a password session, good anywhere.
ALTER TABLE sessions ADD COLUMN organization_id text REFERENCES organizations (id) ON DELETE CASCADE;

CREATE TABLE sso_attempts (
    state_digest    text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    nonce           text NOT NULL,
    code_verifier   text NOT NULL,
    return_to       text NOT NULL,
    expires_at      timestamptz NOT NULL
);
CREATE INDEX sso_attempts_expiry ON sso_attempts (expires_at);

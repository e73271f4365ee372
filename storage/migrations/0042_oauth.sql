-- OAuth 2.0 applications (docs/sign-in.md): apps an organization registers, the grants its users
-- give them (each born as a single-use authorization code) and the access and refresh tokens of a grant. Client
-- secrets, codes and tokens are random 32-byte values stored only as their SHA-256 digest.
CREATE TABLE oauth_apps (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    client_id       text NOT NULL UNIQUE,
    secret_digest   text,  -- NULL: a public app (no secret; PKCE required)
    name            text NOT NULL,
    redirect_uris   text[] NOT NULL,
    scopes          text[] NOT NULL,
    public          boolean NOT NULL,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_apps_org ON oauth_apps (organization_id, created_at DESC);

CREATE TABLE oauth_grants (
    id              text PRIMARY KEY,
    app_id          text NOT NULL REFERENCES oauth_apps (id) ON DELETE CASCADE,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    scopes          text[] NOT NULL,
    code_digest     text NOT NULL UNIQUE,
    redirect_uri    text NOT NULL,
    code_challenge  text,
    code_expires_at timestamptz NOT NULL,
    code_used_at    timestamptz,
    revoked_at      timestamptz,
    created_at      timestamptz NOT NULL
);
CREATE INDEX oauth_grants_app ON oauth_grants (app_id);
CREATE INDEX oauth_grants_member ON oauth_grants (organization_id, user_id);

CREATE TABLE oauth_tokens (
    id           text PRIMARY KEY,
    grant_id     text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('access', 'refresh')),
    token_digest text NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    expires_at   timestamptz,
    spent_at     timestamptz,  -- a refresh token exchanged once; presented again it is a reuse
    revoked_at   timestamptz,
    created_at   timestamptz NOT NULL
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

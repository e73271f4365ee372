-- Assistant (MCP) keys: like API keys, a looked-up prefix plus a bcrypt hash, with the tools and resources the
-- key may use (empty tools: read procedures only; empty resources: every board and KPI its member may read).
CREATE TABLE mcp_keys (
    id                text PRIMARY KEY,
    organization_id   text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id           text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name              text NOT NULL,
    prefix            text NOT NULL,
    secret_hash       text NOT NULL,
    allowed_tools     text[] NOT NULL DEFAULT '{}',
    allowed_resources text[] NOT NULL DEFAULT '{}',
    status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    revoked_at        timestamptz
);
CREATE INDEX mcp_keys_prefix ON mcp_keys (prefix) WHERE status = 'active';
CREATE INDEX mcp_keys_org ON mcp_keys (organization_id, user_id, created_at DESC);

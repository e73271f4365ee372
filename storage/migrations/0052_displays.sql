-- Display links (docs/displays.md): a wall screen's credential for one board. Like an API key, a clear lookup
-- prefix plus a bcrypt hash of the secret; the display acts as the member who created it. Revoking keeps the row
-- (revoked_at set) for the activity trail; deleting the board deletes its displays.
CREATE TABLE displays (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name            text NOT NULL,
    prefix          text NOT NULL,
    secret_hash     text NOT NULL,
    created_by      text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL,
    last_seen_at    timestamptz,
    revoked_at      timestamptz
);
CREATE INDEX displays_prefix ON displays (prefix) WHERE revoked_at IS NULL;
CREATE INDEX displays_org ON displays (organization_id, created_at DESC, id DESC);

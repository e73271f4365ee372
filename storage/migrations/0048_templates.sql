-- Board templates: an organization's saved board structures. Vendor templates are data in
-- actors/templates/vendor.py, not rows. A template outlives its source board (no foreign key) and the boards
-- built from it (they are copies).

CREATE TABLE templates (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text,
    category        text NOT NULL,
    tags            text[] NOT NULL DEFAULT '{}',
    source_board_id text,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    usage_count     integer NOT NULL DEFAULT 0,
    -- protocol/templates.Structure: {defaultView, groups, columns, kpis, automations}.
    structure       jsonb NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX templates_organization ON templates (organization_id, created_at DESC, id DESC);

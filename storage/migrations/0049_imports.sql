-- CSV import sessions. The uploaded bytes live here, in PostgreSQL, so that every node serving the
-- organization sees the session; they are dropped once the import ran (the row stays as history for 90 days).
CREATE TABLE import_sessions (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    file_name       text NOT NULL,
    file_size       integer NOT NULL CHECK (file_size >= 0),
    delimiter       text NOT NULL,
    encoding        text NOT NULL,
    total_rows      integer NOT NULL,           -- records after the header row
    columns         jsonb NOT NULL,             -- [{index, header, sampleValues}]
    content         bytea,                      -- the file as uploaded; null once the import ran
    mapping         jsonb,                      -- import.mapColumns's input, once mapped
    status          text NOT NULL DEFAULT 'uploaded'
                    CHECK (status IN ('uploaded', 'mapped', 'running', 'completed', 'failed')),
    items_created   integer NOT NULL DEFAULT 0,
    items_skipped   integer NOT NULL DEFAULT 0,
    duration_ms     integer,
    error           text,                       -- why a failed import stopped
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,       -- an unexecuted session is deleted after this
    completed_at    timestamptz
);
CREATE INDEX import_sessions_history ON import_sessions (board_id, completed_at DESC)
    WHERE status IN ('completed', 'failed');
CREATE INDEX import_sessions_expiry ON import_sessions (expires_at) WHERE status IN ('uploaded', 'mapped', 'running');
CREATE INDEX import_sessions_retention ON import_sessions (completed_at) WHERE completed_at IS NOT NULL;

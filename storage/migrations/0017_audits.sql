-- 5S audits: audit checklists, audit sessions and the score of each item in a session.
-- A checklist's items never change after creation (there is no update procedure), so they are kept as one
-- jsonb array. Scores are one row per (session, item): re-scoring an item is an upsert, and concurrent
-- submissions on one session each add their own rows under the session's row lock.

CREATE TABLE audit_checklists (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name            text NOT NULL,
    type            text NOT NULL,
    items           jsonb NOT NULL,  -- [{id, question, category, maxScore}], in the checklist's order
    max_score       integer NOT NULL,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL
);
CREATE INDEX audit_checklists_board ON audit_checklists (organization_id, board_id, created_at DESC, id DESC);

CREATE TABLE audit_sessions (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    checklist_id    text NOT NULL REFERENCES audit_checklists (id) ON DELETE CASCADE,
    auditor_id      text REFERENCES users (id) ON DELETE SET NULL,
    date            date NOT NULL,
    status          text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'completed')),
    total_score     integer NOT NULL DEFAULT 0,
    max_score       integer NOT NULL,
    completed_at    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX audit_sessions_board ON audit_sessions (organization_id, board_id, date DESC, created_at DESC, id DESC);
CREATE INDEX audit_sessions_checklist ON audit_sessions (checklist_id, date DESC, created_at DESC);

CREATE TABLE audit_scores (
    session_id        text NOT NULL REFERENCES audit_sessions (id) ON DELETE CASCADE,
    item_id           text NOT NULL,
    score             integer NOT NULL CHECK (score >= 0),
    comment           text,
    photo_url         text,
    scored_by         text REFERENCES users (id) ON DELETE SET NULL,
    scored_at         timestamptz NOT NULL,
    -- generateActions claims a low score before creating its action, then records the action's id:
    -- an item becomes at most one action, however often (or concurrently) actions are generated.
    action_claimed_at timestamptz,
    action_id         text,
    PRIMARY KEY (session_id, item_id)
);

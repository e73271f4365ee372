-- Problem-solving sheets: five whys, Ishikawa and 5W2H analyses on a board, with their
-- review lifecycle and the action whose root cause they analyse (unlinked when that action is deleted).

CREATE TABLE problem_sheets (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    title           text NOT NULL,
    type            text NOT NULL CHECK (type IN ('five_whys', 'ishikawa', 'wwwhwwh')),
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'in_progress', 'completed', 'reviewed')),
    data            jsonb NOT NULL,
    action_id       text REFERENCES actions (id) ON DELETE SET NULL,
    created_by_id   text REFERENCES users (id) ON DELETE SET NULL,
    reviewed_by_id  text REFERENCES users (id) ON DELETE SET NULL,
    reviewed_at     timestamptz,
    review_comment  text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX problem_sheets_board ON problem_sheets (organization_id, board_id, created_at DESC, id DESC);
CREATE INDEX problem_sheets_action ON problem_sheets (organization_id, action_id) WHERE action_id IS NOT NULL;

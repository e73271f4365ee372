-- Standard-work checklists: a board's recurring templates and one completion per
-- template and period. Deleting a template deletes its completions.

CREATE TABLE checklists (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text,
    frequency       text NOT NULL CHECK (frequency IN ('daily', 'shift', 'weekly', 'monthly')),
    -- [{id, text, required}], in the template's order.
    items           jsonb NOT NULL,
    -- Empty: the checklist applies to everyone who sees the board.
    assignee_ids    text[] NOT NULL DEFAULT '{}',
    deadline_hour   smallint NOT NULL DEFAULT 17 CHECK (deadline_hour BETWEEN 0 AND 23),
    is_active       boolean NOT NULL DEFAULT true,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE INDEX checklists_board ON checklists (organization_id, board_id, created_at DESC, id DESC);

CREATE TABLE checklist_completions (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    checklist_id    text NOT NULL REFERENCES checklists (id) ON DELETE CASCADE,
    -- The frequency the period was counted in: a template whose frequency changes starts new periods.
    frequency       text NOT NULL,
    period_start    timestamptz NOT NULL,
    -- The period's start date (UTC), the `date` callers see and filter on.
    date            date NOT NULL,
    completed_by    text REFERENCES users (id) ON DELETE SET NULL,
    completed_at    timestamptz NOT NULL,
    -- [{itemId, checked, comment}] as given.
    responses       jsonb NOT NULL
);
-- One completion per period, even when two tablets submit at the same moment.
CREATE UNIQUE INDEX checklist_completions_period ON checklist_completions (checklist_id, frequency, period_start);
CREATE INDEX checklist_completions_date ON checklist_completions (checklist_id, date DESC, completed_at DESC, id DESC);

-- Corrective actions: a board's actions and the history of their escalation levels.
-- `root_cause_id` names a problem-solving sheet (no foreign key: sheets link to actions both ways and either
-- may be deleted first). `escalation_changed_at` is when the level last moved, by hand or by the overdue
-- scheduler, which counts its interval from it.

CREATE TABLE actions (
    id                    text PRIMARY KEY,
    organization_id       text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id              text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    title                 text NOT NULL,
    description           text,
    status                text NOT NULL DEFAULT 'open'
                          CHECK (status IN ('open', 'in_progress', 'completed', 'verified', 'closed')),
    priority              text NOT NULL CHECK (priority IN ('critical', 'high', 'medium', 'low')),
    assignee_id           text REFERENCES users (id) ON DELETE SET NULL,
    due_date              date NOT NULL,
    source_type           text NOT NULL DEFAULT 'manual'
                          CHECK (source_type IN ('kpi_breach', 'audit', 'gemba', 'manual')),
    source_id             text,
    category              text CHECK (category IN ('safety', 'quality', 'cost', 'delivery', 'people')),
    escalation_level      integer NOT NULL DEFAULT 0 CHECK (escalation_level >= 0),
    escalated_to_user_id  text REFERENCES users (id) ON DELETE SET NULL,
    escalation_changed_at timestamptz,
    root_cause_id         text,
    verification_note     text,
    verified_at           timestamptz,
    verified_by           text REFERENCES users (id) ON DELETE SET NULL,
    completed_at          timestamptz,
    version               integer NOT NULL DEFAULT 1,
    created_by            text REFERENCES users (id) ON DELETE SET NULL,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL
);
CREATE INDEX actions_board ON actions (organization_id, board_id, created_at DESC, id DESC);
-- The overdue scheduler and actions.getOverdue look only at actions still being worked on.
CREATE INDEX actions_open_due ON actions (due_date, id) WHERE status IN ('open', 'in_progress');
CREATE INDEX actions_escalated ON actions (organization_id, due_date, id) WHERE escalation_level > 0;

-- Every move of an action's escalation level; `changed_by` is null for the overdue scheduler. A
-- de-escalation restores the target of the level it returns to from here.
CREATE TABLE action_escalations (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    action_id       text NOT NULL REFERENCES actions (id) ON DELETE CASCADE,
    from_level      integer NOT NULL,
    to_level        integer NOT NULL,
    to_user_id      text REFERENCES users (id) ON DELETE SET NULL,
    reason          text NOT NULL,
    changed_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL
);
CREATE INDEX action_escalations_action ON action_escalations (action_id, created_at DESC, id DESC);

-- Automations: a board's rules and the record of each run. Execution records are
-- purged after 30 days.

CREATE TABLE automations (
    id               text PRIMARY KEY,
    organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id         text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name             text NOT NULL,
    enabled          boolean NOT NULL DEFAULT true,
    trigger          jsonb NOT NULL,
    conditions       jsonb NOT NULL DEFAULT '[]',
    actions          jsonb NOT NULL DEFAULT '[]',
    execution_count  integer NOT NULL DEFAULT 0,
    last_executed_at timestamptz,
    created_by       text REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX automations_board ON automations (organization_id, board_id, created_at);

CREATE TABLE automation_executions (
    id                text PRIMARY KEY,
    organization_id   text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    automation_id     text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    board_id          text NOT NULL,
    status            text NOT NULL CHECK (status IN ('success', 'partial_failure', 'failure', 'skipped')),
    trigger_type      text NOT NULL,
    item_id           text,
    user_id           text,
    event_id          text,
    condition_results jsonb NOT NULL DEFAULT '[]',
    action_results    jsonb NOT NULL DEFAULT '[]',
    error             text,
    duration_ms       integer NOT NULL,
    executed_at       timestamptz NOT NULL
);
CREATE INDEX automation_executions_board ON automation_executions (organization_id, board_id, executed_at DESC, id DESC);
CREATE INDEX automation_executions_rule ON automation_executions (automation_id, executed_at DESC, id DESC);
CREATE INDEX automation_executions_age ON automation_executions (executed_at);

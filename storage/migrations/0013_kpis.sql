-- KPIs: definitions, recorded values, alerts raised by breaches and targets. Owned by the
-- KPI actor (one per KPI): only it writes them, fenced by its epoch. Deleting a KPI deletes the rest.

CREATE TABLE kpis (
    id                  text PRIMARY KEY,
    organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id            text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name                text NOT NULL,
    category            text NOT NULL CHECK (category IN ('safety', 'quality', 'cost', 'delivery', 'people')),
    unit                text,
    direction           text NOT NULL CHECK (direction IN ('higher_is_better', 'lower_is_better')),
    frequency           text NOT NULL CHECK (frequency IN ('daily', 'weekly', 'monthly', 'quarterly')),
    thresholds          jsonb,
    responsible_user_id text REFERENCES users (id) ON DELETE SET NULL,
    version             bigint NOT NULL DEFAULT 1,
    created_by          text REFERENCES users (id) ON DELETE SET NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);
CREATE INDEX kpis_board ON kpis (organization_id, board_id, created_at DESC, id DESC);

CREATE TABLE kpi_values (
    id              text PRIMARY KEY,
    organization_id text NOT NULL,
    kpi_id          text NOT NULL REFERENCES kpis (id) ON DELETE CASCADE,
    -- Insertion order: values recorded in one turn share their time, and the latest is the last written.
    position        bigint GENERATED ALWAYS AS IDENTITY,
    value           double precision NOT NULL,
    status          text CHECK (status IN ('green', 'amber', 'red')),
    recorded_at     timestamptz NOT NULL,
    recorded_by     text REFERENCES users (id) ON DELETE SET NULL,
    source          text NOT NULL CHECK (source IN ('manual', 'import', 'api')),
    comment         text
);
-- History and the latest value of a KPI, newest first, bounded by time.
CREATE INDEX kpi_values_history ON kpi_values (kpi_id, recorded_at DESC, position DESC);
-- Exports: every value of a board's KPIs in a date range.
CREATE INDEX kpi_values_org_time ON kpi_values (organization_id, recorded_at);

CREATE TABLE kpi_alerts (
    id              text PRIMARY KEY,
    organization_id text NOT NULL,
    kpi_id          text NOT NULL REFERENCES kpis (id) ON DELETE CASCADE,
    board_id        text NOT NULL,            -- the KPI's board (a KPI never moves): a board's alerts by time
    value_id        text NOT NULL,
    value           double precision NOT NULL,
    threshold       text NOT NULL CHECK (threshold IN ('amber', 'red')),
    status          text NOT NULL CHECK (status IN ('active', 'acknowledged', 'resolved')),
    triggered_at    timestamptz NOT NULL,
    acknowledged_at timestamptz,
    acknowledged_by text REFERENCES users (id) ON DELETE SET NULL,
    resolved_at     timestamptz,
    resolved_by     text REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX kpi_alerts_board ON kpi_alerts (organization_id, board_id, triggered_at DESC, id DESC);
CREATE INDEX kpi_alerts_kpi ON kpi_alerts (kpi_id, status);

CREATE TABLE kpi_targets (
    id              text PRIMARY KEY,
    organization_id text NOT NULL,
    kpi_id          text NOT NULL REFERENCES kpis (id) ON DELETE CASCADE,
    position        bigint GENERATED ALWAYS AS IDENTITY,
    value           double precision NOT NULL,
    deadline        date NOT NULL,
    milestones      jsonb NOT NULL DEFAULT '[]',
    set_by          text REFERENCES users (id) ON DELETE SET NULL,
    set_at          timestamptz NOT NULL
);
CREATE INDEX kpi_targets_kpi ON kpi_targets (kpi_id, set_at DESC, position DESC);

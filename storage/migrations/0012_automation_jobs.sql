-- Automation runs as durable jobs: every run (an event that may trigger a rule, a runNow item, a cron
-- firing, a date reached, an inbound webhook) is a row here before it runs, so nothing is lost across a
-- restart and, with several nodes, each job runs on one (claims with SKIP LOCKED and a lease).

-- Database time, comparable with events.created_at: a rule only runs on events committed after it.
ALTER TABLE automations ADD COLUMN armed_at timestamptz NOT NULL DEFAULT clock_timestamp();
-- recurring: the next cron firing; date.arrived: the last day already checked (UTC).
ALTER TABLE automations ADD COLUMN next_fire_at timestamptz;
ALTER TABLE automations ADD COLUMN checked_through date;
-- webhook.received: the rule's inbound secret (kept in clear: an HMAC needs the key itself).
ALTER TABLE automations ADD COLUMN hook_secret text;
CREATE INDEX automations_scheduled ON automations ((trigger->>'type')) WHERE enabled
    AND trigger->>'type' IN ('recurring', 'date.arrived');

CREATE TABLE automation_jobs (
    id              text PRIMARY KEY,
    n               bigserial NOT NULL,          -- insertion order: a board's jobs run in the order made
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    automation_id   text NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    board_id        text NOT NULL,
    trigger_type    text NOT NULL,               -- the record's triggerType ('manual' for runNow)
    event_id        text,                        -- the triggering event, when an event triggered it
    item_id         text,
    user_id         text,                        -- who caused it (the event's actor, runNow's caller)
    depth           integer NOT NULL DEFAULT 0,  -- how many automation runs led to it
    context         jsonb NOT NULL DEFAULT '{}', -- what the run needs besides the event (inbound body)
    dedupe_key      text NOT NULL,               -- one job per (rule, key): the bus and the sweep meet here
    done            boolean NOT NULL DEFAULT false,
    due_at          timestamptz NOT NULL,        -- not claimable before (a claim's lease moves it on)
    created_at      timestamptz NOT NULL,
    UNIQUE (automation_id, dedupe_key)
);
CREATE INDEX automation_jobs_due ON automation_jobs (due_at, n) WHERE NOT done;
CREATE INDEX automation_jobs_done ON automation_jobs (created_at) WHERE done;

-- One global row: events created before `fanned_out_until` (minus an overlap) have their jobs.
CREATE TABLE automation_cursor (
    singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fanned_out_until timestamptz NOT NULL
);
INSERT INTO automation_cursor (fanned_out_until) VALUES (clock_timestamp());

-- Both log sweeps (webhooks, automations) read events by creation time across organizations.
CREATE INDEX events_created ON events (created_at);

CREATE FUNCTION automation_job_id() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT 'ajb_' || string_agg(substr('abcdefghijklmnopqrstuvwxyz234567', 1 + floor(random() * 32)::int, 1), '')
      FROM generate_series(1, 20)
$$;

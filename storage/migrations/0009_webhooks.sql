-- Outbound webhooks: the organization's subscriptions, one delivery row per
-- (webhook, event) and the fan-out watermark that lets a restarted node catch up on the event log.

CREATE TABLE webhooks (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url             text NOT NULL,
    events          text[] NOT NULL,
    -- Kept in clear: an HMAC needs the key itself (a hash could not sign).
    secret          text,
    description     text,
    active          boolean NOT NULL DEFAULT true,
    failed          boolean NOT NULL DEFAULT false,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    -- Database time, comparable with events.created_at: only events after this are fanned out to it.
    subscribed_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhooks_org ON webhooks (organization_id, created_at);

CREATE TABLE webhook_deliveries (
    id              text PRIMARY KEY,
    organization_id text NOT NULL,
    webhook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event           text NOT NULL,
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    response_code   integer,
    duration_ms     integer,
    last_error      text,
    next_attempt_at timestamptz,
    created_at      timestamptz NOT NULL,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC, id DESC);

-- One global row: events created before `fanned_out_until` (minus an overlap) are fanned out.
CREATE TABLE webhook_cursor (
    singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fanned_out_until timestamptz NOT NULL
);
INSERT INTO webhook_cursor (fanned_out_until) VALUES (clock_timestamp());

-- A delivery id made inside the fan-out statement (one INSERT for many rows): `whd_` + 20 base32 chars.
CREATE FUNCTION webhook_delivery_id() RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT 'whd_' || string_agg(substr('abcdefghijklmnopqrstuvwxyz234567', 1 + floor(random() * 32)::int, 1), '')
      FROM generate_series(1, 20)
$$;

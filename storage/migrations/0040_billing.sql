-- Billing: one subscription per organization (created on first read from the organization's
-- plan), the checkout and portal sessions of the payment processor, and the processor callbacks already applied
-- (by event id: a repeated callback is applied once).

CREATE TABLE subscriptions (
    id                        text PRIMARY KEY,
    organization_id           text NOT NULL UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
    status                    text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'past_due', 'canceled')),
    billing_interval          text NOT NULL DEFAULT 'monthly' CHECK (billing_interval IN ('monthly', 'annual')),
    seats                     integer CHECK (seats > 0),  -- NULL: the plan's seats
    current_period_start      timestamptz NOT NULL,
    current_period_end        timestamptz NOT NULL,
    cancel_at_period_end      boolean NOT NULL DEFAULT false,
    processor_customer_id     text,  -- NULL for the sandbox processor
    processor_subscription_id text,
    created_at                timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL
);

CREATE TABLE billing_sessions (
    id               text PRIMARY KEY,
    organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('checkout', 'portal')),
    plan             text CHECK (plan IN ('starter', 'business', 'enterprise')),
    billing_interval text CHECK (billing_interval IN ('monthly', 'annual')),
    seats            integer,
    success_url      text,
    cancel_url       text,
    return_url       text,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed')),
    created_by       text REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL
);
CREATE INDEX billing_sessions_org ON billing_sessions (organization_id, created_at DESC);

CREATE TABLE billing_events (
    id              text PRIMARY KEY,  -- the processor's event id
    organization_id text REFERENCES organizations (id) ON DELETE CASCADE,
    type            text NOT NULL,
    received_at     timestamptz NOT NULL
);

-- Guessing throttle (actors/identity/throttle.py): one row per throttled subject — an account
-- (`account:<e-mail>`, password logins, later one-time codes) or a client address (`address:<ip>`, invalid
-- bearer credentials and session tokens) — holding its recent failures and the time before which the next
-- attempt is refused. In PostgreSQL so that every node sees the same count; the node's clock writes the times.
CREATE TABLE auth_throttle (
    key             text PRIMARY KEY,
    failures        integer NOT NULL,
    last_failure_at timestamptz NOT NULL,
    locked_until    timestamptz
);
CREATE INDEX auth_throttle_last_failure ON auth_throttle (last_failure_at);

-- The secret part of an e-mail (an invitation link) is kept sealed until it is sent, then wiped:
-- `body` holds the text with every secret redacted, `sealed_body` the whole text under authenticated
-- encryption (actors/kernel/sealing.py). The key generated when OBEYA_SECRET_KEY is unset is kept here.
ALTER TABLE emails ADD COLUMN sealed_body bytea;

CREATE TABLE secret_keys (
    name       text PRIMARY KEY,
    material   bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- The secret part of an e-mail (an invitation link) is kept sealed until it is sent, then wiped:
-- `body` holds the text with every secret redacted, `sealed_body` the whole text under authenticated
-- encryption (actors/kernel/sealing.py). The key generated when OBEYA_SECRET_KEY is unset is kept here.
ALTER TABLE emails ADD COLUMN sealed_body bytea;

CREATE TABLE secret_keys (
    name       text PRIMARY KEY,
    material   bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Checklist history and completion rates select completions by completion time (docs/decisions.md "Missed
-- checklists and completion rate").
CREATE INDEX checklist_completions_made ON checklist_completions (checklist_id, completed_at DESC, id DESC);

-- Mail delivery: when a queued e-mail may next be tried (a retry's backoff, or a sender's claim lease).
ALTER TABLE emails ADD COLUMN next_attempt_at timestamptz;
CREATE INDEX emails_due ON emails (next_attempt_at NULLS FIRST, created_at) WHERE status = 'queued';

-- When a submission became one its respondent was told was received (its first request answered without
-- finishing it, or a retry or the sweeper took it over): from then on it is never removed, only finished.
-- Null while the first request still decides; submissions stored before this column were all answered.
ALTER TABLE form_submissions ADD COLUMN acknowledged_at timestamptz;
UPDATE form_submissions SET acknowledged_at = submitted_at;

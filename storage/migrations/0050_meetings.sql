-- Tier meetings (docs/templates-and-meetings.md): one row per meeting held at a board. The agenda is the snapshot taken
-- at the start and never changes afterwards, so it is kept as one jsonb document. `start_seq` and
-- `completion_seq` are the board stream's seq of the meeting's own `meeting.started` and
-- `meeting.completed` events: the board's changes made during the meeting are the events between them.
CREATE TABLE meetings (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    tier            smallint NOT NULL CHECK (tier BETWEEN 1 AND 5),
    status          text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'completed')),
    attendee_ids    text[] NOT NULL DEFAULT '{}',
    agenda          jsonb NOT NULL,
    notes           text,
    started_by      text REFERENCES users (id) ON DELETE SET NULL,
    completed_by    text REFERENCES users (id) ON DELETE SET NULL,
    start_seq       bigint NOT NULL,
    completion_seq  bigint,
    started_at      timestamptz NOT NULL,
    completed_at    timestamptz
);
CREATE INDEX meetings_board ON meetings (organization_id, board_id, started_at DESC, id DESC);
-- One meeting of a tier in progress at a board at a time: a second start (two tablets at one board) is a 409.
CREATE UNIQUE INDEX meetings_one_in_progress ON meetings (board_id, tier) WHERE status = 'in_progress';

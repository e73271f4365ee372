-- Meeting mode and replay (docs/templates-and-meetings.md): the agenda entry under discussion and since when,
-- the entries discussed (`kpis/<id>`, `actions/<id>`, `escalations/<id>`), and the board as it was at the start
-- (its groups, columns and items as items.list gives them). Meetings started before this have no snapshot (null).
ALTER TABLE meetings
    ADD COLUMN current_entry  text,
    ADD COLUMN current_since  timestamptz,
    ADD COLUMN discussed      text[] NOT NULL DEFAULT '{}',
    ADD COLUMN board_snapshot jsonb,
    ADD CONSTRAINT meetings_current CHECK ((current_entry IS NULL) = (current_since IS NULL));

-- A cross-board move in two committed steps: the source board marks the item (and its sub-items) as
-- leaving for `moving_to`, then the target board takes them under its own numbering and clears the mark.
-- A row still marked is a move to complete (by a retry or the sweeper), never a row of two boards.
ALTER TABLE items ADD COLUMN moving_to text;
CREATE INDEX items_moving ON items (moving_to) WHERE moving_to IS NOT NULL;

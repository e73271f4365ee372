-- Which activation wrote an actor's events: the node and the epoch it committed under (both NULL for events
-- written by services outside actors). Lets operators and the cluster tests check from the log alone that no
-- epoch ever committed from two nodes.
ALTER TABLE events ADD COLUMN node_id text, ADD COLUMN epoch bigint;

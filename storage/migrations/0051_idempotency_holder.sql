-- The node that holds an Idempotency-Key claim in flight (its node id, server/config.py OBEYA_NODE_ID): a
-- retry that finds the claim takes it over as soon as that node is known to be gone, instead of answering
-- 409 "still in progress" until the claim counts as abandoned (web/idempotency_store.py). NULL on claims made
-- before this column, which only that older rule frees.
ALTER TABLE idempotency_keys ADD COLUMN holder text;

-- The reply an actor gave to a call made under an Idempotency-Key, written in the turn that applied the call: a
-- retry whose first reply was lost (a timeout, a node killed between commit and reply) is answered from here,
-- on whichever node owns the actor by then, instead of being applied twice. Kept as long as the keys (24 h).
CREATE TABLE actor_replies (
    actor_key  text NOT NULL,
    call_key   text NOT NULL,
    reply      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (actor_key, call_key)
);
CREATE INDEX actor_replies_created ON actor_replies (created_at);

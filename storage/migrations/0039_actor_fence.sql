-- The epoch fence of an actor's commit as one call (storage/epochs.py): it locks the actor's epoch row until the
-- transaction ends and raises OB001 unless `p_epoch` is still the current epoch. Sent in the same round trip as
-- the commit's BEGIN, so fencing a turn costs no round trip of its own.
CREATE FUNCTION actor_fence(p_actor_key text, p_epoch bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM actor_epochs WHERE actor_key = p_actor_key AND epoch = p_epoch FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'stale epoch' USING ERRCODE = 'OB001';
    END IF;
END
$$;

-- Approval flows (docs/forms-and-approvals.md): a form's flows, the requests its
-- submissions open, the approvers' decisions, the e-mailed decision tokens and the action nodes' runs. The
-- flow's actor (actors/approvals/) writes every row below except the flow definition itself.

CREATE TABLE approval_flows (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id         text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text,
    gxp_required    boolean NOT NULL DEFAULT false,
    is_active       boolean NOT NULL DEFAULT false,
    nodes           jsonb NOT NULL,
    edges           jsonb NOT NULL,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz               -- soft delete: kept for the requests and decisions it made
);
CREATE INDEX approval_flows_form ON approval_flows (organization_id, form_id, created_at DESC, id DESC);
-- At most one active flow per form: activating one deactivates the other in the same transaction.
CREATE UNIQUE INDEX approval_flows_one_active ON approval_flows (form_id) WHERE is_active AND deleted_at IS NULL;

-- One request per submission. `node_id` is the approval node it waits at, `step` counts the approval steps
-- it entered (a decision names its step, so decisions of an earlier visit of the same node do not count).
-- While returned for revision, `revision_token_hash` is set (SHA-256 of the link's token).
CREATE TABLE approval_requests (
    id                  text PRIMARY KEY,
    organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    flow_id             text NOT NULL REFERENCES approval_flows (id) ON DELETE CASCADE,
    form_id             text NOT NULL,
    submission_id       text NOT NULL UNIQUE REFERENCES form_submissions (id) ON DELETE CASCADE,
    item_id             text,
    status              text NOT NULL CHECK (status IN ('pending', 'in_progress', 'approved', 'rejected', 'expired')),
    node_id             text,
    step                integer NOT NULL DEFAULT 0,
    step_started_at     timestamptz,
    expires_at          timestamptz,
    data                jsonb NOT NULL,       -- the submission's current answers
    version             integer NOT NULL,     -- and their version
    respondent_email    text,
    revision_token_hash text UNIQUE,
    returned_by         text,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    completed_at        timestamptz
);
CREATE INDEX approval_requests_flow ON approval_requests (organization_id, flow_id, created_at DESC, id DESC);
CREATE INDEX approval_requests_form ON approval_requests (organization_id, form_id, status);
CREATE INDEX approval_requests_expiring ON approval_requests (expires_at)
    WHERE expires_at IS NOT NULL AND status IN ('pending', 'in_progress');

-- Decisions: one per approver and step. `signature` is the GxP manifestation {signerName, signerEmail,
-- signedAt, meaning, recordHash}. Never updated or deleted (the trigger below).
CREATE TABLE approval_decisions (
    id                  text PRIMARY KEY,
    organization_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    request_id          text NOT NULL REFERENCES approval_requests (id) ON DELETE CASCADE,
    flow_id             text NOT NULL,
    form_id             text NOT NULL,
    node_id             text NOT NULL,
    step                integer NOT NULL,
    user_id             text NOT NULL,
    user_name           text,
    user_email          text,
    decision            text NOT NULL CHECK (decision IN ('approved', 'rejected', 'returned_for_revision')),
    comment             text,
    field_modifications jsonb NOT NULL DEFAULT '[]',
    via                 text NOT NULL CHECK (via IN ('session', 'token')),
    ip_address          text,
    user_agent          text,
    version             integer NOT NULL,     -- the submission version the decision stands on
    signature           jsonb,
    created_at          timestamptz NOT NULL,
    UNIQUE (request_id, step, user_id)
);
CREATE INDEX approval_decisions_request ON approval_decisions (request_id, created_at, id);

-- Decisions are a record: never changed. They go only with their organization, or, unsigned, with their
-- form (the cascade from `forms`); a signed (GxP) decision keeps its form from deletion
-- (actors/approvals/intake.py blocks_form_deletion).
CREATE FUNCTION approval_decisions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND (
           NOT EXISTS (SELECT 1 FROM organizations WHERE id = OLD.organization_id)
           OR (OLD.signature IS NULL AND NOT EXISTS (SELECT 1 FROM forms WHERE id = OLD.form_id))) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'approval decisions are never changed or deleted' USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER approval_decisions_immutable BEFORE UPDATE OR DELETE ON approval_decisions
    FOR EACH ROW EXECUTE FUNCTION approval_decisions_immutable();

-- E-mailed decision links: one approve and one reject token per approver and step, kept as SHA-256;
-- single use, void once the step completes (or the approver decided).
CREATE TABLE approval_tokens (
    token_hash      text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    request_id      text NOT NULL REFERENCES approval_requests (id) ON DELETE CASCADE,
    flow_id         text NOT NULL,
    node_id         text NOT NULL,
    step            integer NOT NULL,
    user_id         text NOT NULL,
    decision        text NOT NULL CHECK (decision IN ('approved', 'rejected')),
    created_at      timestamptz NOT NULL,
    used_at         timestamptz,
    voided_at       timestamptz
);
CREATE INDEX approval_tokens_request ON approval_tokens (request_id, step);

-- Action nodes: each run once on the submission's item, by the action-node worker after the turn that
-- reached the node committed (never inside the turn).
CREATE TABLE approval_action_runs (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    request_id      text NOT NULL REFERENCES approval_requests (id) ON DELETE CASCADE,
    flow_id         text NOT NULL,
    node_id         text NOT NULL,
    step            integer NOT NULL,
    item_id         text,
    action          jsonb NOT NULL,           -- {type, config}
    acting_user_id  text,                     -- the flow's creator, as whom the action runs
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    error           text,
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    UNIQUE (request_id, node_id, step)
);
CREATE INDEX approval_action_runs_pending ON approval_action_runs (created_at) WHERE status = 'pending';

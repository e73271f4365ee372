-- Files, forms, submissions and the respondents of forms (docs/forms-and-approvals.md).
-- Approval flows have their own migration. `files` describes a file; its bytes are the
-- FileStore's (actors/files/), kept apart so that listing and checking files never reads them.

CREATE TABLE files (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    content_type    text NOT NULL,           -- sniffed from the bytes, never the uploader's claim
    size            bigint NOT NULL CHECK (size >= 0),
    sha256          text NOT NULL,
    uploaded_by     text REFERENCES users (id) ON DELETE SET NULL,  -- null: a form's respondent
    form_id         text,                     -- set when a respondent uploaded it for a form
    created_at      timestamptz NOT NULL
);
CREATE INDEX files_organization ON files (organization_id, created_at DESC);

CREATE TABLE forms (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    slug            text NOT NULL,
    name            text NOT NULL,
    description     text,
    status          text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'closed')),
    schema          jsonb NOT NULL,           -- {components: [...]}
    mappings        jsonb NOT NULL DEFAULT '[]',
    settings        jsonb NOT NULL,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    published_at    timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    UNIQUE (organization_id, slug)
);
CREATE INDEX forms_board ON forms (organization_id, board_id, created_at DESC, id DESC);

-- One row per submission; `data` is its current version (versions below keep every one). `respondent` is
-- who submitted, as allowMultiple compares them: `user:<id>`, `email:<address>` (OTP) or
-- `recipient:<id>` (distribution token); null for anonymous. `item_id` is chosen before the board is
-- asked to create the item, so a retry of that step makes the same item; `completed_at` is set once the
-- item exists and `form.submitted` is logged.
CREATE TABLE form_submissions (
    id               text PRIMARY KEY,
    organization_id  text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id          text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    board_id         text NOT NULL,
    data             jsonb NOT NULL,
    version          integer NOT NULL DEFAULT 1,
    item_id          text,
    status           text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'reviewed', 'archived')),
    submitted_by     text REFERENCES users (id) ON DELETE SET NULL,
    respondent       text,
    respondent_email text,
    idempotency_key  text,
    request_hash     text,
    submitted_at     timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    completed_at     timestamptz
);
CREATE INDEX form_submissions_form ON form_submissions (organization_id, form_id, submitted_at DESC, id DESC);
CREATE UNIQUE INDEX form_submissions_key ON form_submissions (form_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX form_submissions_respondent ON form_submissions (form_id, respondent) WHERE respondent IS NOT NULL;
CREATE INDEX form_submissions_unfinished ON form_submissions (submitted_at) WHERE completed_at IS NULL;

-- Every version of a submission's answers: 1 is what was submitted; approvers' field modifications and
-- the respondent's revisions add the next ones. Never updated or deleted while the submission lives.
CREATE TABLE form_submission_versions (
    submission_id   text NOT NULL REFERENCES form_submissions (id) ON DELETE CASCADE,
    version         integer NOT NULL,
    organization_id text NOT NULL,
    data            jsonb NOT NULL,
    changed_by      text,                     -- user id; null for the respondent
    changed_by_name text,
    changed_by_email text,
    reason          text NOT NULL,            -- submitted, field_modification, revision
    comment         text,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (submission_id, version)
);

-- Distribution: one row per recipient of a form; the tracking token is kept only as its SHA-256.
CREATE TABLE form_recipients (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id         text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    email           text NOT NULL,
    name            text,
    token_hash      text NOT NULL UNIQUE,
    status          text NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'opened', 'started', 'completed')),
    sent_at         timestamptz NOT NULL,
    opened_at       timestamptz,
    started_at      timestamptz,
    completed_at    timestamptz,
    reminder_count  integer NOT NULL DEFAULT 0,
    last_reminded_at timestamptz
);
CREATE INDEX form_recipients_form ON form_recipients (organization_id, form_id, sent_at, id);

-- One-time passwords for anonymous respondents: the code only as a hash, 10 minutes, 5 attempts.
CREATE TABLE form_otps (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id         text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    email           text NOT NULL,            -- lower case
    code_hash       text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    expires_at      timestamptz NOT NULL,
    used_at         timestamptz,
    voided_at       timestamptz,
    created_at      timestamptz NOT NULL
);
CREATE INDEX form_otps_email ON form_otps (organization_id, email, created_at DESC);
CREATE INDEX form_otps_form ON form_otps (form_id, email, created_at DESC);

-- Session tokens given by forms.verifyOtp: for one form and e-mail, 24 hours; kept as SHA-256.
CREATE TABLE form_sessions (
    token_hash      text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    form_id         text NOT NULL REFERENCES forms (id) ON DELETE CASCADE,
    email           text NOT NULL,
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL
);

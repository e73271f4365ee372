-- Workspaces, projects and boards; a board's groups, columns, items and comments (owned by the board
-- actor: only it writes them, fenced by its epoch).

CREATE TABLE workspaces (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text,
    color           text NOT NULL,
    icon            text,
    visibility      text NOT NULL DEFAULT 'open' CHECK (visibility IN ('open', 'closed')),
    archived_at     timestamptz,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX workspaces_org ON workspaces (organization_id, created_at DESC, id DESC);

CREATE TABLE workspace_members (
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id         text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            text NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'admin')),
    added_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (workspace_id, user_id)
);

CREATE TABLE projects (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text,
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX projects_workspace ON projects (workspace_id, created_at DESC, id DESC);

CREATE TABLE boards (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    project_id      text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name            text NOT NULL,
    default_view    text NOT NULL DEFAULT 'board'
                    CHECK (default_view IN ('board', 'table', 'timeline', 'calendar', 'visual')),
    next_number     bigint NOT NULL DEFAULT 1,   -- the board's auto_number counter
    created_by      text REFERENCES users (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX boards_project ON boards (project_id, created_at DESC, id DESC);

CREATE TABLE board_groups (
    id              text PRIMARY KEY,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name            text NOT NULL,
    color           text NOT NULL,
    position        double precision NOT NULL,
    collapsed       boolean NOT NULL DEFAULT false
);
CREATE INDEX board_groups_board ON board_groups (board_id);

CREATE TABLE board_columns (
    id              text PRIMARY KEY,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    name            text NOT NULL,
    type            text NOT NULL,
    position        double precision NOT NULL,
    width           integer NOT NULL DEFAULT 150,
    required        boolean NOT NULL DEFAULT false,
    config          jsonb NOT NULL DEFAULT '{}',
    default_value   jsonb,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX board_columns_board ON board_columns (board_id);

CREATE TABLE items (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    group_id        text NOT NULL,
    parent_id       text,
    name            text NOT NULL,
    description     text,
    position        double precision NOT NULL,
    "values"        jsonb NOT NULL DEFAULT '{}',
    number          bigint,
    version         bigint NOT NULL DEFAULT 1,
    created_by      text,
    archived_at     timestamptz,
    deleted_at      timestamptz,                 -- in the trash: restorable for 30 days
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX items_board ON items (board_id, group_id, position);
CREATE INDEX items_trash ON items (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE comments (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    board_id        text NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
    item_id         text NOT NULL,
    parent_id       text,
    author_id       text REFERENCES users (id) ON DELETE SET NULL,
    body            text NOT NULL,
    body_html       text NOT NULL,
    mentions        text[] NOT NULL DEFAULT '{}',
    attachment_ids  text[] NOT NULL DEFAULT '{}',
    reactions       jsonb NOT NULL DEFAULT '{}',  -- reaction code -> user ids
    is_pinned       boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX comments_item ON comments (item_id, created_at DESC, id DESC);

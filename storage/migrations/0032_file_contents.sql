-- The bytes of files (actors/files/postgres_store.py), apart from their description in `files` (0031) so that
-- listing and checking files never reads them. Written before the description row (an object store could
-- not join a transaction either), so there is no foreign key to `files`; the organization's deletion takes both.
CREATE TABLE file_contents (
    file_id         text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    content         bytea NOT NULL
);
ALTER TABLE file_contents ALTER COLUMN content SET STORAGE EXTERNAL;  -- mostly compressed formats already

-- A comment keeps the description of each attachment it was made with ({id, name, size, type}): files never
-- change, so the comment shows them without reading `files` again.
ALTER TABLE comments ADD COLUMN attachments jsonb NOT NULL DEFAULT '[]';

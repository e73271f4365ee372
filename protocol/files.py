"""Who may upload and read files (docs/forms-and-approvals.md). The file routes take and give bytes,
not JSON, so they are not registry procedures (the RPC router would serve them); these descriptions, kept out
of the registry, let the routes run the same `authorize` as every procedure: role, plan, key and token scopes."""

from __future__ import annotations

from protocol.registry import EmptyInput, Procedure, Role

UPLOAD = Procedure(name="files.upload", kind="mutation", input=EmptyInput,
                   summary="Upload a file (multipart field `file`, at most 25 MB)", min_role=Role.MEMBER,
                   key_scope="write:items", token_scope="write")
READ = Procedure(name="files.get", kind="query", input=EmptyInput, summary="Download a file of the organization",
                 min_role=Role.GUEST, key_scope="read:items", token_scope="read")

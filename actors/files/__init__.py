"""Files (docs/forms-and-approvals.md): uploads, their bytes behind a FileStore, and how they are served."""

"""Files (DESIGN.md "Files, forms and approvals"): uploads, their bytes behind a FileStore, and how they are served."""

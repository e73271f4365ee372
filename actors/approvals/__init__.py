"""Approval flows (domain 2.9, 4.9; DESIGN.md "Files, forms and approvals"): one actor per flow, owning its
requests and decisions, with e-mailed decision tokens, revisions, expiry and GxP signatures."""

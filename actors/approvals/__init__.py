"""Approval flows (docs/forms-and-approvals.md): one actor per flow, owning its
requests and decisions, with e-mailed decision tokens, revisions, expiry and GxP signatures."""

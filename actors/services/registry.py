"""Imports every module that implements procedures, so that the handler table is complete."""

from actors.services import (  # noqa: F401  (imported for their @implement registrations)
    accounts,
    actions,
    activity,
    api_keys,
    audits,
    automations,
    boards,
    checklists,
    comments,
    event_feed,
    exports,
    items,
    kpis,
    notifications,
    organizations,
    personal_tokens,
    problem_solving,
    projects,
    webhooks,
    workspaces,
)

"""Plan tiers and what each includes (docs/billing.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    name: str
    seats: int | None          # None: unlimited
    boards: int | None
    automations_per_board: int | None  # 0: the feature is off
    kpis: bool
    api_access: bool
    requests_per_minute: int
    features: frozenset[str]
    items_per_board: int | None = None  # None: unlimited (`maxItemsPerBoard`; docs/decisions.md "Plan limits")


_ALL_PAID = frozenset({"kpis", "automations", "templates", "csv_import", "webhooks"})

PLANS: dict[str, Plan] = {
    "free": Plan("free", 3, 3, 0, False, False, 60, frozenset({"templates"}), items_per_board=100),
    "starter": Plan("starter", 10, 10, 5, True, False, 300, _ALL_PAID, items_per_board=1000),
    "business": Plan("business", 25, 50, None, True, True, 1000,
                     _ALL_PAID | {"api_access", "audit_log", "advanced_permissions"}),
    "enterprise": Plan("enterprise", None, None, None, True, True, 5000,
                       _ALL_PAID | {"api_access", "audit_log", "advanced_permissions", "sso", "custom_branding"}),
}


def plan(name: str) -> Plan:
    return PLANS.get(name, PLANS["free"])


# The feature keys of `billing.checkFeatureGate`, and the limits it also answers for (`seats`, `boards`).
FEATURE_KEYS = ("kpis", "automations", "templates", "csv_import", "api_access", "sso", "audit_log", "custom_branding",
                "webhooks", "advanced_permissions")
LIMIT_KEYS = ("seats", "boards")
# The plans a checkout may buy (`free` is where an organization starts, never bought).
PAID_PLANS = ("starter", "business", "enterprise")


def allows(name: str, feature: str) -> bool:
    """Whether plan `name` includes `feature` (a key of FEATURE_KEYS)."""
    return feature in plan(name).features or (feature == "api_access" and plan(name).api_access)

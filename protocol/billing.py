"""Billing (docs/billing.md): the organization's subscription, checkout and portal sessions of the payment processor,
and feature gates. Inputs and procedure declarations.

Managing billing needs the admin role, and from a bearer credential the `manage_billing` key scope or the `admin`
token scope (docs/scopes.md); reading a feature gate is for every member, as the interface hides what the plan lacks.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.registry import EmptyInput, Role, declare

PaidPlan = Literal["starter", "business", "enterprise"]
Interval = Literal["monthly", "annual"]
Feature = Literal["kpis", "automations", "templates", "csv_import", "api_access", "sso", "audit_log",
                  "custom_branding", "webhooks", "advanced_permissions", "seats", "boards"]
# Where the processor's page sends the browser back: an absolute http(s) URL.
ReturnUrl = Annotated[str, msgspec.Meta(pattern=r"^https?://[^\s]+$", max_length=2000)]
Seats = Annotated[int, msgspec.Meta(ge=1, le=100_000)]


class CheckoutInput(msgspec.Struct):
    plan: PaidPlan
    interval: Interval
    successUrl: ReturnUrl
    cancelUrl: ReturnUrl
    seats: Seats | None = None  # the plan's seats when omitted


class PortalInput(msgspec.Struct):
    returnUrl: ReturnUrl


class FeatureGateInput(msgspec.Struct):
    feature: Feature


GET_SUBSCRIPTION = declare("billing.getSubscription", "query", EmptyInput, key_scope="manage_billing",
                           token_scope="admin", min_role=Role.ADMIN,
                           summary="The organization's subscription: plan, status, period, seats and features")
CREATE_CHECKOUT = declare("billing.createCheckoutSession", "mutation", CheckoutInput, key_scope="manage_billing",
                          token_scope="admin", min_role=Role.ADMIN,
                          summary="A payment processor checkout for a plan; its URL expires after 24 hours")
CREATE_PORTAL = declare("billing.createPortalSession", "mutation", PortalInput, key_scope="manage_billing",
                        token_scope="admin", min_role=Role.ADMIN,
                        summary="A payment processor portal for seats, payment methods and cancellation")
CHECK_FEATURE_GATE = declare("billing.checkFeatureGate", "query", FeatureGateInput,
                             summary="Whether the organization's plan includes a feature, with its limit and usage")

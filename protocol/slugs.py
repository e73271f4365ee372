"""Organization slugs the service keeps for itself: the left-most host label names the organization
(`<slug>.<service_host>`), so a slug equal to a host the server routes, or may route later, would let an
organization stand where the service's own pages are expected (`auth.<service_host>` serves OAuth). One list,
used by sign-up and `obeya org create` alike; matched case-insensitively, as hosts are."""

from __future__ import annotations

from protocol.errors import ValidationFailed

# Host labels the server routes today (web/context.py): never an organization.
ROUTED_HOST_LABELS = frozenset({"auth", "www"})

# Everything else a service like this routes or may route on its own subdomain, or that a user could mistake
# for the service itself (mail, status, support pages, environments, well-known infrastructure names).
RESERVED_SLUGS = ROUTED_HOST_LABELS | frozenset({
    "about", "account", "accounts", "admin", "administrator", "api", "app", "apps", "assets", "auth",
    "autodiscover", "autoconfig", "billing", "blog", "cdn", "console", "dashboard", "dev", "developer",
    "developers", "docs", "download", "ftp", "graphql", "help", "hooks", "imap", "internal", "localhost",
    "login", "logout", "mail", "mcp", "media", "metrics", "mx", "ns", "ns1", "ns2", "oauth", "obeya",
    "pop", "pop3", "postmaster", "prod", "production", "register", "root", "security", "signin", "signup",
    "smtp", "socket", "sso", "stage", "staging", "static", "status", "support", "system", "test", "webhook",
    "webhooks", "webmail", "ws", "www",
})


def is_reserved(slug: str) -> bool:
    return slug.lower() in RESERVED_SLUGS


def check_organization_slug(slug: str, field: str = "organizationSlug") -> None:
    """422 VALIDATION_ERROR (400 over RPC) naming `field` when the slug is one the service keeps."""
    if is_reserved(slug):
        raise ValidationFailed.of(field, f"'{slug.lower()}' is reserved by the service; choose another slug")

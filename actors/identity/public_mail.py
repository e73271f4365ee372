"""The domains of public mail providers, whose addresses anyone may open: single sign-on never lets such a domain
join an organization by itself (actors/identity/sso.py, allowed domains)."""

from __future__ import annotations

# Not exhaustive: the providers most addresses live at. A domain left out here is still only as safe as the
# organization that lists it (docs/decisions.md, "Single sign-on accounts and sessions stay on their organization").
PUBLIC_MAIL_DOMAINS = frozenset({
    "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "hotmail.co.uk", "hotmail.fr", "hotmail.de",
    "live.com", "live.co.uk", "msn.com", "yahoo.com", "yahoo.co.uk", "yahoo.co.jp", "yahoo.fr", "yahoo.de",
    "ymail.com", "icloud.com", "me.com", "mac.com", "aol.com", "proton.me", "protonmail.com", "pm.me",
    "gmx.com", "gmx.de", "gmx.net", "web.de", "mail.com", "yandex.com", "yandex.ru", "mail.ru", "qq.com",
    "163.com", "126.com", "zoho.com", "fastmail.com", "hey.com", "tutanota.com", "tuta.io", "orange.fr",
    "free.fr", "laposte.net", "t-online.de", "libero.it", "btinternet.com", "comcast.net", "naver.com",
})


def is_public(domain: str) -> bool:
    return domain.lower() in PUBLIC_MAIL_DOMAINS

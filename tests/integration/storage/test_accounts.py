"""The account repository's profile update: only the fields it writes are numbered and passed."""

from __future__ import annotations

from storage import accounts
from tests.harness import Org
from web.keys import NODE


async def test_update_skips_unknown_fields_and_keeps_the_others(org: Org) -> None:
    pool = org.owner.client.server.app[NODE].pool
    # An ignored field before a written one: the written one still gets its own value.
    row = await accounts.update_user(pool, org.owner_id, {"email": "taken@x.test", "name": "Renamed"})
    assert row is not None and (row["name"], row["email"]) == ("Renamed", org.owner_email)
    row = await accounts.update_user(pool, org.owner_id, {"role": "owner", "image": "https://i/b.png",
                                                          "password_hash": "x"})
    assert row is not None and (row["name"], row["image"]) == ("Renamed", "https://i/b.png")
    row = await accounts.update_user(pool, org.owner_id, {"status": "gone"})
    assert row is not None and (row["name"], row["image"]) == ("Renamed", "https://i/b.png")


async def test_profile_updates_of_one_field_keep_the_other(org: Org) -> None:
    image_only = await org.owner.rest("PATCH", "/api/v1/auth/me", {"image": "https://i/c.png"})
    assert image_only.status == 200, image_only.body
    assert (image_only.data["name"], image_only.data["image"]) == ("Olga Owner", "https://i/c.png")
    name_only = await org.owner.mutate("auth.updateProfile", {"name": "Olga O."})
    assert name_only.status == 200, name_only.body
    me = await org.owner.rest("GET", "/api/v1/auth/me")
    assert (me.data["name"], me.data["image"]) == ("Olga O.", "https://i/c.png")

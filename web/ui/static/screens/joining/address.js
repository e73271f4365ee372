// An organization's address (its slug, the first label of its host): the pattern SignupInput's
// organizationSlug must match (protocol/fields.py SLUG_PATTERN), the address suggested from a name, and the
// organization's sign-in page.
import { organizationUrl } from "../../session.js";

export const slugPattern = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
const LONGEST = 63;

/** "Acme Plant Lyon" -> "acme-plant-lyon"; accents dropped, anything else a hyphen; "" when nothing is left. */
export function suggestSlug(name) {
  return name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "").slice(0, LONGEST).replace(/-+$/, "");
}

/**
 * The sign-in page of the organization `slug`, for `email` when known, with `extra` query parameters.
 * @param {string} slug
 * @param {string | null} email
 * @param {Record<string, string>} [extra]
 */
export function signInUrl(slug, email, extra = {}) {
  const query = new URLSearchParams({ ...(email ? { email } : {}), ...extra }).toString();
  return organizationUrl(slug, `/signin${query ? `?${query}` : ""}`);
}

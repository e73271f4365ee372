// Who is signed in, in which organization, with which role: read once at start (auth.me and
// organizations.get in one request) and kept as signals the shell and screens read. Signing out ends the
// session on the server and leaves for the sign-in screen.
import { signal, computed } from "./lib.js";
import { queryAll, rest, onSignedOut } from "./api.js";

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? "";

/** The service's own host (sign-up, the organization picker) and the organization this host names ("" on
 * the service host). */
export const serviceHost = meta("obeya-service-host");
export const organizationSlug = meta("obeya-organization");

/** The signed-in user (auth.me: id, name, email, memberships[]), null when signed out, undefined while
 * unknown. */
export const me = signal(undefined);
/** This host's organization (organizations.get), when signed in to it. */
export const organization = signal(null);
/** The caller's role in this organization: owner, admin, member or guest. */
export const role = computed(() => me.value?.memberships?.find(
  (membership) => membership.organizationSlug === organizationSlug)?.role ?? null);
export const isAdmin = computed(() => role.value === "owner" || role.value === "admin");

/** The address of `slug`'s organization (or the service host for null), same scheme and port as here. */
export function organizationUrl(slug, path = "/") {
  const port = window.location.port ? `:${window.location.port}` : "";
  const host = slug ? `${slug}.${serviceHost}` : serviceHost;
  return `${window.location.protocol}//${host}${port}${path}`;
}

/** Learn who is signed in here; on an organization's host, also the organization. */
export async function loadSession() {
  try {
    /** @type {[string, object][]} */
    const calls = [["auth.me", {}]];
    if (organizationSlug) calls.push(["organizations.get", {}]);
    const [user, org] = await queryAll(calls);
    organization.value = org ?? null;
    me.value = user;
  } catch (error) {
    // 404: no such organization here (or the user is gone); its sign-in screen says so.
    if (error.status === 401 || error.status === 403 || error.status === 404) me.value = null;
    else throw error;
  }
}

export async function signOut() {
  try {
    await rest("POST", "/api/v1/auth/logout");
  } finally {
    me.value = null;
    organization.value = null;
  }
}

onSignedOut(() => { me.value = null; });

// The refusals a person meets while signing in or joining, in words that say what to do: too many attempts
// (and when to try again), the server out of reach, and a screen's own wording for the fields the server
// named. Shared by the sign-in, sign-up and invitation screens; the result is an ApiError again, so
// forms.js's `useForm` maps it onto the fields as any refusal.
import { ApiError } from "../../api.js";
import { ago } from "../../format.js";
import { catalogue } from "../../i18n.js";
import strings from "./refusals.strings.js";

const t = catalogue(strings);
// A 429 without Retry-After: a minute is the rate limit's window.
const DEFAULT_WAIT_SECONDS = 60;

/**
 * `error` restated for a person. `explain(error)` answers the screen's messages by field ("_form" for the
 * whole form), or null to keep the server's.
 * @param {unknown} error
 * @param {(error: ApiError) => Record<string, string> | null} [explain]
 */
export function restate(error, explain = () => null) {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 429) {
    const seconds = error.retryAfter ?? DEFAULT_WAIT_SECONDS;
    const when = ago(new Date(Date.now() + seconds * 1000).toISOString());
    return new ApiError(429, error.code, t("tooMany", { when }), [], error.retryAfter);
  }
  if (error.status === 0) return new ApiError(0, error.code, t("unreachable"));
  if (error.status >= 500) return new ApiError(error.status, error.code, t("unavailable"));
  const messages = explain(error);
  if (!messages) return error;
  const { _form: form, ...fields } = messages;
  return new ApiError(error.status, error.code, form ?? error.message,
    Object.entries(fields).map(([field, message]) => ({ field, message })), error.retryAfter);
}

/** The path `next` names when it is a path on this host (never another site, never the API); else null. */
export function samePath(next) {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  let url;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return null;
  }
  if (url.origin !== window.location.origin || url.pathname.startsWith("/api/")) return null;
  return url.pathname + url.search + url.hash;
}

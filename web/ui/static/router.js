// Where the page is: the path and query as a signal, links that move without reloading the page, and the
// route table's matching. Paths are the stable ones links in e-mails and notifications use.
import { signal } from "./lib.js";

/** {path: string, query: URLSearchParams} of the page now. */
export const location = signal(current());

function current() {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Go to `url` (a path on this host) without reloading; `replace` keeps the history entry. */
export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  location.value = current();
  if (!replace) window.scrollTo(0, 0);
}

/** Change one query parameter (null removes it) in place, e.g. the board's view. */
export function setQuery(name, value) {
  const query = new URLSearchParams(window.location.search);
  if (value === null) query.delete(name);
  else query.set(name, value);
  const search = query.toString();
  navigate(`${window.location.pathname}${search ? `?${search}` : ""}`, { replace: true });
}

window.addEventListener("popstate", () => { location.value = current(); });

// Same-origin links move inside the app; a modified click (new tab), a download or another origin does not.
document.addEventListener("click", (event) => {
  const link = /** @type {HTMLAnchorElement | null} */ (event.target instanceof Element ? event.target.closest("a[href]") : null);
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey
      || event.altKey || link.target || link.hasAttribute("download") || link.dataset.reload !== undefined) return;
  const url = new URL(link.href);
  if (url.origin !== window.location.origin || url.pathname.startsWith("/api/")) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});

/**
 * The first route whose pattern matches `path`: patterns are paths with `:name` segments.
 * @template T
 * @param {[string, T][]} table
 * @param {string} path
 * @returns {{value: T, params: Record<string, string>} | null}
 */
export function match(table, path) {
  for (const [pattern, value] of table) {
    const names = [];
    const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_, name) => { names.push(name); return "([^/]+)"; })}/?$`);
    const found = regex.exec(path);
    if (found) return { value, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1])])) };
  }
  return null;
}

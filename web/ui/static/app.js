// The app shell: decides from the host whether this is the service's own site (sign-in, sign-up, picking an
// organization) or an organization's app, reads the session, keeps the page's live connection and draws the
// frame (skip link, navigation with the unread count, the connection banner, notices) around the screen the
// path names. Screens are loaded on first use (one module each under screens/).
import { html, render, useEffect, useState, signal } from "./lib.js";
import { location, match, navigate } from "./router.js";
import { catalogue } from "./i18n.js";
import { me, organization, loadSession, signOut, organizationSlug } from "./session.js";
import { connection } from "./live.js";
import { unread, followNotifications } from "./notifications.js";
import { Notices } from "./components/notices.js";
import { Loading, LoadError, Page } from "./components/page.js";
import { time, ago } from "./format.js";
import strings from "./shell.strings.js";

const t = catalogue(strings);

// path pattern -> screen module (screens/<name>.js, whose default export draws it)
/** @type {[string, string][]} */
const ORGANIZATION_ROUTES = [
  ["/", "home"], ["/workspaces/:id", "home"], ["/projects/:id", "home"], ["/notifications", "notifications"],
  ["/boards/:id", "board"], ["/items/:id", "item"], ["/kpis/:id", "kpi"], ["/actions/:id", "action"],
  ["/meetings/:id", "meeting"], ["/settings", "settings"], ["/settings/:section", "settings"], ["/signin", "signin"],
  ["/invite/accept", "invite"],
];
/** @type {[string, string][]} */
const SERVICE_ROUTES = [["/", "welcome"], ["/signin", "welcome"], ["/signup", "signup"]];
// Screens a signed-out person may see.
const PUBLIC_SCREENS = new Set(["signin", "welcome", "signup", "invite"]);

const screens = new Map();
function loadScreen(name) {
  if (!screens.has(name)) screens.set(name, import(`./screens/${name}.js`));
  return screens.get(name);
}

function useScreen(name) {
  const [state, setState] = useState({ name: null, component: null, error: null });
  useEffect(() => {
    let current = true;
    loadScreen(name).then(
      (module) => current && setState({ name, component: module.default, error: null }),
      (error) => current && setState({ name, component: null, error }));
    return () => { current = false; };
  }, [name]);
  return state.name === name ? state : { name, component: null, error: null };
}

// Seconds tick for "last heard ... ago" while offline.
const now = signal(Date.now());
setInterval(() => { if (connection.value.status !== "live") now.value = Date.now(); }, 1000);

function ConnectionBanner() {
  const { status, lastHeard } = connection.value;
  // A page that has not connected yet within its first seconds says so too.
  const [grace, setGrace] = useState(true);
  useEffect(() => { const timer = setTimeout(() => setGrace(false), 2000); return () => clearTimeout(timer); }, []);
  const show = status === "offline" || (status === "connecting" && !grace);
  // Only the news that the connection is lost is announced; the "last update ... ago" line beside it changes
  // every second and stays out of the live region, or a screen reader would read it every second.
  return html`<div class="connection">
    <p role="status" class="visually-hidden">${show ? t("offline") : ""}</p>
    ${show && html`<section class="connection__banner" aria-label=${t("connection")}>
      <strong>${t("offline")}</strong>
      <span>${lastHeard ? t("lastHeard", { time: time(lastHeard), ago: ago(new Date(lastHeard).toISOString(),
        now.value) }) : t("neverHeard")}</span>
    </section>`}
  </div>`;
}

function Navigation() {
  const path = location.value.path;
  // Home covers the workspace and project paths too (the same screen with a choice made).
  const home = path === "/" || path.startsWith("/workspaces/") || path.startsWith("/projects/");
  const current = (href) => (href === "/" ? home : path.startsWith(href)) ? "page" : undefined;
  const count = unread.value;
  return html`<header class="topbar">
    <a class="topbar__brand" href="/">${organization.value?.name ?? "Obeya"}</a>
    <nav aria-label=${t("mainNavigation")} class="topbar__nav">
      <a href="/" aria-current=${current("/")}>${t("home")}</a>
      <a href="/notifications" aria-current=${current("/notifications")}>
        <span>${t("notifications")}${count > 0 && html`<span class="visually-hidden">, ${t("unread", { count })}</span>`}</span>
        ${count > 0 && html`<span class="badge" aria-hidden="true">${count}</span>`}
      </a>
      <a href="/settings" aria-current=${current("/settings")}>${t("settings")}</a>
    </nav>
    <div class="topbar__user">
      <span class="topbar__name" title=${me.value?.email}>${me.value?.name}</span>
      <button type="button" class="button button--quiet" onClick=${async () => {
        await signOut();
        navigate("/signin");
      }}>${t("signOut")}</button>
    </div>
  </header>`;
}

function NotFound() {
  return html`<${Page} title=${t("notFound")}><p>${t("notFoundBody")}</p><p><a href="/">${t("home")}</a></p><//>`;
}

function Screen({ name, params, query }) {
  const { component: Component, error } = useScreen(name);
  if (error) return html`<${LoadError} title=${t("loadFailed")} error=${error} retryLabel=${t("retry")}
    onRetry=${() => { screens.delete(name); navigate(window.location.pathname + window.location.search, { replace: true }); }} />`;
  if (!Component) return html`<${Loading} label=${t("loading")} />`;
  return html`<${Component} params=${params} query=${query} />`;
}

function App() {
  const { path, query } = location.value;
  const routes = organizationSlug ? ORGANIZATION_ROUTES : SERVICE_ROUTES;
  const found = match(routes, path);
  const user = me.value;
  if (user === undefined) return html`<main id="main" class="main"><${Loading} label=${t("loading")} /></main>`;
  let name = found?.value ?? null;
  if (organizationSlug && user === null && !PUBLIC_SCREENS.has(name ?? "")) name = "signin";
  const inOrganization = organizationSlug && user;
  return html`
    <a class="skip-link" href="#main">${t("skip")}</a>
    ${inOrganization && html`<${Navigation} />`}
    ${inOrganization && html`<${ConnectionBanner} />`}
    <main id="main" class=${`main${inOrganization ? "" : " main--narrow"}`} tabindex="-1">
      ${name ? html`<${Screen} key=${name + path} name=${name} params=${found?.params ?? {}} query=${query} />`
        : html`<${NotFound} />`}
    </main>
    <${Notices} dismissLabel=${t("dismiss")} />`;
}

// Pages with a frame of their own instead of the shell's: the wall screen (a display link's credential, no
// person's session, no chrome) and the shop-floor tablet (works offline from what it kept). Each module's
// `start(root)` draws the whole page.
/** @type {[string, string][]} */
const STANDALONE_ROUTES = [["/screens/:id", "wall"], ["/tablet", "tablet"]];

let following = null;
async function start() {
  const root = document.getElementById("app");
  const standalone = organizationSlug ? match(STANDALONE_ROUTES, location.value.path) : null;
  if (standalone) {
    const module = await loadScreen(standalone.value);
    root.textContent = "";
    await module.start(root, standalone.params);
    return;
  }
  root.textContent = "";
  render(html`<${App} />`, root);
  await loadSession();
}

// Follow the person's notifications while signed in to an organization; stop when signed out.
me.subscribe((user) => {
  if (organizationSlug && user && !following) following = followNotifications();
  if (!user && following) { following.stop(); following = null; }
});

start().catch((error) => {
  render(html`<main class="main main--narrow"><${LoadError} title=${t("loadFailed")} error=${error}
    retryLabel=${t("retry")} onRetry=${() => window.location.reload()} /></main>`, document.getElementById("app"));
});

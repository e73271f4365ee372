// The shop-floor tablet's service worker (registered by screens/tablet.js with scope /tablet, served at
// /tablet-sw.js by web/ui/app_page.py). It answers the /tablet page and the /ui/ files it loads, so the tablet
// opens with no network. Network first: online, the tablet gets the current release and the cache is refreshed;
// with no answer within a few seconds, or no network, the kept copy. The page itself puts its files in the cache
// on every load (screens/tablet.js keepShell: on the first visit it loaded them before this worker existed).
// API calls pass through untouched: the tablet keeps its data and its write queue in IndexedDB itself.
const CACHE = "obeya-tablet-shell-v1";
const NETWORK_WAIT_MS = 4000;
const worker = /** @type {any} */ (self);

const kept = (url) => {
  const { pathname, origin } = new URL(url);
  return origin === worker.location.origin && (pathname === "/tablet" || pathname.startsWith("/ui/"));
};

worker.addEventListener("install", () => worker.skipWaiting());
worker.addEventListener("activate", (event) => event.waitUntil(worker.clients.claim()));

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  const fromNetwork = fetch(request).then(async (response) => {
    if (response.ok) await cache.put(request, response.clone());
    return response;
  });
  fromNetwork.catch(() => {});  // offline: answered from the cache below
  const late = new Promise((resolve) => { setTimeout(resolve, NETWORK_WAIT_MS, null); });
  try {
    const answer = await Promise.race([fromNetwork, late]);
    if (answer) return answer;
  } catch {
    // no network: the kept copy below
  }
  const copy = await cache.match(request, { ignoreSearch: true });
  return copy ?? fromNetwork;
}

worker.addEventListener("fetch", (event) => {
  if (event.request.method === "GET" && kept(event.request.url)) event.respondWith(networkFirst(event.request));
});

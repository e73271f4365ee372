// A settings section's reads, the one loader of every section: `useLoad(read, deps)` runs `read(signal)` when
// the section opens and when `deps` change, keeps {data, error, loading} and gives `reload()` for after a write
// (a newer read aborts the older one, so a slow reply never overwrites a newer one) and `update(change)` to put
// a write's reply into the data at once; `Loaded` draws the loading line or the load error until there is
// data.
import { html, useState, useEffect } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { Loading, LoadError } from "../../components/page.js";
import strings from "./common.strings.js";

const t = catalogue(strings);

/**
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} read
 * @param {any[]} deps
 * @returns {{data: T | null, error: any, loading: boolean, reload: () => void,
 *   update: (change: (data: T | null) => T | null) => void}}
 */
export function useLoad(read, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((old) => ({ ...old, loading: true, error: null }));
    read(controller.signal).then(
      (data) => { if (!controller.signal.aborted) setState({ data, error: null, loading: false }); },
      (error) => { if (!controller.signal.aborted) setState({ data: null, error, loading: false }); });
    return () => controller.abort();
  }, [...deps, round]);
  return { ...state, reload: () => setRound((value) => value + 1),
    update: (change) => setState((old) => ({ ...old, data: change(old.data) })) };
}

/** `children(data)` once loaded; the loading line before, the error with a retry after a failure. */
export function Loaded({ state, children }) {
  if (state.error) {
    return html`<${LoadError} title=${t("loadFailed")} error=${state.error} retryLabel=${t("retry")}
      onRetry=${state.reload} />`;
  }
  if (state.data === null) return html`<${Loading} label=${t("loading")} />`;
  return children(state.data);
}

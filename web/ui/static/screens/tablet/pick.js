// Choosing the board of the person's line, once: the tablet remembers it (IndexedDB) until changed.
import { html, useEffect, useState } from "../../lib.js";
import { boardsToPick } from "./data.js";

export function PickBoard({ t, onPick, onCancel }) {
  const [state, setState] = useState({ boards: null, failed: false });
  const load = () => {
    // Offline, say so at once rather than after the retries of a request that cannot go out.
    if (!navigator.onLine) {
      setState({ boards: null, failed: true });
      return;
    }
    setState({ boards: null, failed: false });
    boardsToPick().then((boards) => setState({ boards, failed: false }),
      () => setState({ boards: null, failed: true }));
  };
  useEffect(load, []);
  const { boards, failed } = state;
  return html`<section class="tablet-pick" aria-labelledby="tablet-pick">
    <h2 id="tablet-pick">${t("pickTitle")}</h2>
    <p>${t("pickHint")}</p>
    ${onCancel && html`<button type="button" class="button button--secondary tablet-big" onClick=${onCancel}>
      ${t("keepBoard")}</button>`}
    ${failed && html`<p class="tablet-error" role="alert">${t("pickOffline")}</p>
      <button type="button" class="button button--secondary tablet-big" onClick=${load}>${t("retry")}</button>`}
    ${!failed && !boards && html`<p class="loading" role="status">${t("loading")}</p>`}
    ${boards && boards.length === 0 && html`<p>${t("noBoards")}</p>`}
    ${boards && boards.length > 0 && html`<ul class="tablet-forms">${boards.map((board) => html`<li key=${board.id}>
      <button type="button" class="button button--secondary tablet-big tablet-pick__board"
        onClick=${() => onPick(board.id)}>
        <span>${board.name}</span><span class="tablet-card__meta">${board.where}</span></button>
    </li>`)}</ul>`}
  </section>`;
}

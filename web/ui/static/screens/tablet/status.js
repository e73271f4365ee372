// The tablet's top bar: the board, the network, how many writes wait to be sent and when the tablet last
// heard from the server. It stays on screen at all times (sticky), so the person always knows what is sent.
import { html } from "../../lib.js";
import { time, dateTime } from "../../format.js";
import { entries, loaded } from "./queue.js";
import { sync, drain } from "./sync.js";

export function StatusBar({ t, boardName, readAt, offlineReady, onChangeBoard }) {
  const { lastSync, sending, online } = sync.value;
  const waiting = entries.value.length;
  return html`<header class="tablet-bar">
    <div class="tablet-bar__board">
      <h1 class="tablet-bar__title">${boardName ?? t("title")}</h1>
      ${onChangeBoard && html`<button type="button" class="button button--quiet tablet-bar__change"
        onClick=${onChangeBoard}>${t("changeBoard")}</button>`}
    </div>
    <section class="tablet-bar__sync" aria-label=${t("syncStatus")}>
      <span class=${`tablet-pill ${online ? "tablet-pill--online" : "tablet-pill--offline"}`}>
        ${online ? t("online") : t("offline")}</span>
      ${offlineReady && html`<span class="tablet-pill tablet-pill--ready">${t("offlineReady")}</span>`}
      <span class="tablet-bar__queue" data-waiting=${waiting}>
        ${!loaded.value ? t("loading") : sending && waiting > 0 ? t("sending")
          : waiting > 0 ? t("waiting", { count: waiting }) : t("allSent")}</span>
      <span class="tablet-bar__last">${lastSync ? t("lastSync", { time: time(lastSync) }) : t("neverSynced")}</span>
      ${!online && readAt && html`<span class="tablet-bar__kept">${t("keptAt", { time: dateTime(readAt) })}</span>`}
      ${waiting > 0 && online && html`<button type="button" class="button button--secondary"
        onClick=${() => drain()}>${t("sendNow")}</button>`}
    </section>
  </header>`;
}

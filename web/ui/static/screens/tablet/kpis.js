// Value entry for the KPIs the person is responsible for: each value is queued as kpis.setValue and shown as
// queued until the server has it.
import { html, useState } from "../../lib.js";
import { number, parseNumber, dateTime } from "../../format.js";
import { call, enqueue, entries } from "./queue.js";
import { drain } from "./sync.js";

const withUnit = (value, unit) => (unit ? `${number(value)} ${unit}` : number(value));

function Kpi({ t, kpi }) {
  const [text, setText] = useState("");
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const queued = entries.value.filter((entry) => entry.procedure === "kpis.setValue" && entry.input.kpiId === kpi.id);
  const last = queued[queued.length - 1];
  const id = `kpi-${kpi.id}`;
  const record = async (event) => {
    event.preventDefault();
    const value = parseNumber(text);
    if (value === null) {
      setError(t("notNumber"));
      return;
    }
    setError(null);
    await enqueue([{ ...call("kpis.setValue", { kpiId: kpi.id, value }),
      about: { what: "kpi", name: kpi.name, value } }]);
    setText("");
    drain();
  };
  const latest = kpi.latestValue;
  return html`<form class="tablet-card tablet-kpi" aria-labelledby=${`${id}-name`} onSubmit=${record} novalidate>
    <header class="tablet-card__head">
      <h3 id=${`${id}-name`} class="tablet-card__title">${kpi.name}</h3>
      <span class="tablet-card__meta">${latest ? `${t("latest", { value: withUnit(latest.value, kpi.unit) })} · ${
        dateTime(latest.recordedAt ?? latest.createdAt)}` : t("noValue")}</span>
      ${last && html`<span class="tablet-pill tablet-pill--done">
        ${t("queuedValue", { value: withUnit(last.input.value, kpi.unit) })}</span>`}
    </header>
    <div class="tablet-kpi__entry">
      <label class="tablet-field">
        <span class="tablet-field__label">${t("value", { name: kpi.name })}</span>
        <input type="text" inputmode="decimal" class="tablet-field__input" value=${text}
          aria-invalid=${error ? "true" : undefined}
          aria-describedby=${error ? `${id}-error` : undefined}
          onInput=${(event) => setText(event.currentTarget.value)} />
      </label>
      <button type="submit" class="button button--primary tablet-big">${t("record")}</button>
    </div>
    ${error && html`<p id=${`${id}-error`} class="tablet-error">${error}</p>`}
  </form>`;
}

export function Kpis({ t, kpis }) {
  if (kpis.length === 0) return html`<p class="tablet-empty">${t("noKpis")}</p>`;
  return html`<div class="tablet-list">${kpis.map((kpi) => html`<${Kpi} key=${kpi.id} t=${t} kpi=${kpi} />`)}</div>`;
}

// Settings section "Exports": pick a board, then download its items (export.exportBoard, as CSV or as JSON
// built from that CSV), its action log (export.exportActionLog) or its KPI values between two days
// (export.exportKpiData). The procedures answer the file's text; the page hands it over as a download.
import { html, useState } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { localDay } from "../../format.js";
import { Field, ErrorSummary, Submit, useForm } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { BoardPicker } from "./board-picker.js";
import { saveFile } from "./download.js";
import { csvObjects } from "./csv.js";
import strings from "./exports.strings.js";

const t = catalogue(strings);
const CSV = "text/csv;charset=utf-8";
/** The day `offsetDays` from today, where the viewer is (as a date field holds it). */
const isoDay = (offsetDays) => {
  const at = new Date();
  at.setDate(at.getDate() + offsetDays);
  return localDay(at);
};
const fileName = (board, what, extension) => `${board.name.replace(/[^\p{L}\p{N}]+/gu, "-")}-${what}.${extension}`;

/** One export: a form whose submit fetches the text and saves it as `file`. */
function ExportForm({ title, hint, fields, initial, check, label, fetch, children }) {
  const form = useForm(initial);
  const run = async (values) => {
    const { name, text, type } = await fetch(values);
    saveFile(name, text, type);
    notify(t("downloaded", { file: name }));
  };
  return html`<section class="card export" aria-labelledby=${`export-${fields}`}>
    <h3 id=${`export-${fields}`}>${title}</h3>
    <p class="hint">${hint}</p>
    <form novalidate onSubmit=${(event) => { event.preventDefault(); form.submit(run, check); }}>
      <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
      ${children?.(form)}
      <${Submit} busy=${form.busy} busyLabel=${t("preparing")}>${label}<//>
    </form>
  </section>`;
}

function Formats({ form }) {
  return html`<fieldset class="field">
    <legend class="label">${t("format")}</legend>
    ${["csv", "json"].map((format) => html`<label key=${format} class="checkbox checkbox--plain">
      <input type="radio" name="format" value=${format} checked=${form.values.format === format}
        onChange=${() => form.set("format")(format)} /> <span>${t(format)}</span></label>`)}
  </fieldset>`;
}

function BoardExports({ board }) {
  const boardId = board.id;
  return html`
    <${ExportForm} title=${t("itemsTitle")} hint=${t("itemsHint")} fields="items" initial=${{ format: "csv" }}
        label=${t("downloadItems")} fetch=${async ({ format }) => {
          const text = await api.export.exportBoard({ boardId });
          return format === "json"
            ? { name: fileName(board, "items", "json"), text: JSON.stringify(csvObjects(text), null, 2), type: "application/json" }
            : { name: fileName(board, "items", "csv"), text, type: CSV };
        }}>${(form) => html`<${Formats} form=${form} />`}<//>
    <${ExportForm} title=${t("actionsTitle")} hint=${t("actionsHint")} fields="actions" initial=${{}}
      label=${t("downloadActions")} fetch=${async () => ({ name: fileName(board, "actions", "csv"), type: CSV,
        text: await api.export.exportActionLog({ boardId }) })} />
    <${ExportForm} title=${t("kpiTitle")} hint=${t("kpiHint")} fields="kpis"
        initial=${{ startDate: isoDay(-30), endDate: isoDay(0) }} label=${t("downloadKpis")}
        check=${(v) => ({ startDate: v.startDate ? null : t("startRequired"), endDate: !v.endDate ? t("endRequired")
          : v.startDate && v.endDate < v.startDate ? t("endBeforeStart") : null })}
        fetch=${async ({ startDate, endDate }) => ({ name: fileName(board, `kpis-${startDate}-${endDate}`, "csv"), type: CSV,
          text: await api.export.exportKpiData({ boardId, startDate, endDate }) })}>${(form) => html`<div class="export__dates">
        <${Field} name="startDate" type="date" label=${t("startDate")} value=${form.values.startDate}
          onInput=${form.set("startDate")} error=${form.errors.startDate} required />
        <${Field} name="endDate" type="date" label=${t("endDate")} value=${form.values.endDate}
          onInput=${form.set("endDate")} error=${form.errors.endDate} required />
      </div>`}<//>`;
}

export default function Section() {
  const [board, setBoard] = useState(null);
  return html`<h2>${t("title")}</h2>
    <p>${t("intro")}</p>
    <${BoardPicker} onChange=${(_, entry) => setBoard(entry)} />
    ${board ? html`<${BoardExports} key=${board.id} board=${board} />` : html`<p class="hint">${t("chooseBoard")}</p>`}`;
}

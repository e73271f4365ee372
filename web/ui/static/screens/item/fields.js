// The item's fields: every column of its board with the item's value, each edited in place with the board's
// own CellEditor. A value is sent with the version the item had when its editor opened; when someone changed
// that same value meanwhile, the 409 comes back as a choice between theirs and yours. The server's refusal
// of a value is shown by the editor next to the control.
import { html, useState } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { ConflictNotice } from "../../components/conflict.js";
import { notify } from "../../components/notices.js";
import { CellEditor, CellValue, COMPUTED_TYPES } from "../board/cells.js";
import { Conflict } from "../board/writes.js";
import strings from "../item.strings.js";

const t = catalogue(strings);

function FieldRow({ column, store, writes }) {
  const [editing, setEditing] = useState(null); // {item, base} as the editor opened
  const [conflict, setConflict] = useState(null);
  const item = store.item.value;
  const members = store.members.value;
  const value = item.values?.[column.id] ?? null;
  const show = (shown) => html`<${CellValue} column=${column} value=${shown} members=${members} />`;
  const close = () => { setEditing(null); setConflict(null); };
  const save = async (next) => {
    try {
      await writes.setValue(editing.item, column.id, next, editing.base);
      close();
    } catch (error) {
      if (error instanceof Conflict) setConflict(error);
      else throw error;
    }
  };
  const overwrite = async () => {
    try {
      await writes.setValue(conflict.item, column.id, conflict.yours, conflict.theirs,
        { force: true, version: conflict.item.version });
      close();
    } catch (error) {
      notify(t("actionFailed", { message: error.message }), "error");
    }
  };
  return html`<div class="item-field">
    <div class="item-field__name">${column.name}</div>
    <div class="item-field__value">
      ${conflict ? html`<${ConflictNotice} title=${t("valueConflict", { column: column.name })}
          theirsLabel=${t("theirValue")} yoursLabel=${t("yourValue")} theirs=${show(conflict.theirs)} yours=${show(conflict.yours)}
          keepTheirsLabel=${t("keepTheirs")} overwriteLabel=${t("useMine")}
          onKeepTheirs=${() => { store.putItem(conflict.item); close(); }} onOverwrite=${overwrite} />`
        : editing ? html`<${CellEditor} column=${column} value=${value} members=${members} onSave=${save} onCancel=${close} />`
        : html`<div class="item-field__shown">
            ${value === null ? html`<span class="item-field__empty">${t("noValue")}</span>` : show(value)}
            ${!COMPUTED_TYPES.has(column.type) && html`<button type="button" class="button button--quiet button--small"
              onClick=${() => setEditing({ item, base: value })}>${t("edit")}<span class="visually-hidden"> ${column.name}</span></button>`}
          </div>`}
    </div>
  </div>`;
}

export function Fields({ store, writes }) {
  const columns = store.columns.value;
  return html`<section class="item-section" aria-labelledby="item-fields-title">
    <h2 id="item-fields-title">${t("fieldsTitle")}</h2>
    ${columns.length === 0 ? html`<p class="empty">${t("noColumns")}</p>`
      : html`<div class="item-fields">${columns.map((column) => html`<${FieldRow} key=${column.id} column=${column}
          store=${store} writes=${writes} />`)}</div>`}
  </section>`;
}

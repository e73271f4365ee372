// The bar shown while items are selected: how many, and what to do with all of them at once (move to a
// group, set the status, delete), then clear the selection. Values go by items.bulkUpdate, deletions by
// items.bulkDelete (100 ids a call), moves by items.move one item at a time (there is no bulk move).
import { html, useState, useId } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

function Pick({ label, options, onApply, applyLabel }) {
  const id = useId();
  const [value, setValue] = useState(options[0]?.[0] ?? "");
  return html`<div class="bulk__pick">
    <label for=${id}>${label}</label>
    <select id=${id} class="input" value=${value} onChange=${(event) => setValue(event.currentTarget.value)}>
      ${options.map(([key, text]) => html`<option key=${key} value=${key}>${text}</option>`)}
    </select>
    <button type="button" class="button button--secondary" onClick=${() => onApply(value || options[0]?.[0])}>${applyLabel}</button>
  </div>`;
}

export function BulkBar({ store, writes, selection, announce }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const ids = [...selection.value].filter((id) => store.items.has(id));
  if (ids.length === 0) return null;
  const status = store.columns.value.find((column) => column.type === "status");
  const run = async (action, done) => {
    setBusy(true);
    try {
      await action();
      announce(done);
      selection.value = new Set();
    } catch (error) {
      notify(t("saveFailed", { message: error.message }), "error");
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const moveTo = (groupId) => run(async () => {
    for (const id of ids) {
      const item = store.items.get(id);
      if (item && item.groupId !== groupId) await writes.move(item, groupId);
    }
  }, t("bulkMoved", { count: ids.length }));
  return html`<section class="bulk" aria-label=${t("bulkActions")} aria-busy=${busy ? "true" : undefined}>
    <p class="bulk__count" role="status">${t("selected", { count: ids.length })}</p>
    <${Pick} label=${t("chooseGroup")} applyLabel=${t("bulkMove")} onApply=${moveTo}
      options=${store.groups.value.map((group) => [group.id, group.name])} />
    ${status && html`<${Pick} label=${status.name} applyLabel=${t("bulkStatus", { column: status.name })}
      options=${(status.config?.labels ?? []).map((label) => [label.id, label.name])}
      onApply=${(labelId) => run(() => writes.bulkSet(ids, { [status.id]: { id: labelId } }),
        t("bulkUpdated", { count: ids.length }))} />`}
    <button type="button" class="button button--danger" disabled=${busy} onClick=${() => setConfirming(true)}>${t("bulkDelete")}</button>
    <button type="button" class="button button--secondary" onClick=${() => { selection.value = new Set(); }}>${t("bulkClear")}</button>
    <${ConfirmDialog} open=${confirming} title=${t("bulkDeleteTitle", { count: ids.length })} message=${t("deleteItemMessage")}
      confirmLabel=${t("bulkDelete")} cancelLabel=${t("cancel")} busy=${busy}
      onConfirm=${() => run(() => writes.bulkDelete(ids), t("bulkDeleted", { count: ids.length }))}
      onClose=${() => setConfirming(false)} />
  </section>`;
}

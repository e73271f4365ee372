// The board's dialogs: editing one cell (with the 409 conflict choice), an item's actions (rename, move to
// another group, delete) and a group's (rename, delete). Each is the shared native <dialog>, so focus is
// trapped inside and goes back to the control that opened it.
import { html, useState } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { Dialog, ConfirmDialog } from "../../components/dialog.js";
import { ConflictNotice } from "../../components/conflict.js";
import { Field, ErrorSummary, useForm, Submit } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { CellEditor, CellValue } from "./cells.js";
import { Conflict } from "./writes.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

/** Edit `column` of `item`; a 409 on this very value shows theirs against yours and lets the person choose. */
export function EditDialog({ editing, store, writes, members, onClose }) {
  const [conflict, setConflict] = useState(null);
  const open = editing !== null;
  const close = () => { setConflict(null); onClose(); };
  if (!open) return html`<${Dialog} open=${false} title="" onClose=${close} />`;
  const { item, column, base } = editing;
  const save = async (value) => {
    try {
      await writes.setValue(item, column.id, value, base);
      close();
    } catch (error) {
      if (error instanceof Conflict) setConflict(error);
      else throw error;
    }
  };
  const show = (value) => html`<${CellValue} column=${column} value=${value} members=${members} items=${store.items} />`;
  return html`<${Dialog} open=${open} title=${t("editorTitle", { column: column.name, item: item.name })} onClose=${close}>
    ${conflict ? html`<${ConflictNotice} title=${t("conflictTitle")} theirsLabel=${t("conflictTheirs")}
        yoursLabel=${t("conflictYours")} theirs=${show(conflict.theirs)} yours=${show(conflict.yours)}
        keepTheirsLabel=${t("keepTheirs")} overwriteLabel=${t("overwrite")}
        onKeepTheirs=${() => { store.upsert(conflict.item); close(); }}
        onOverwrite=${async () => {
          try {
            await writes.setValue(conflict.item, column.id, conflict.yours, conflict.theirs,
              { force: true, version: conflict.item.version });
            close();
          } catch (error) {
            notify(t("saveFailed", { message: error.message }), "error");
          }
        }} />`
      : html`<${CellEditor} column=${column} value=${item.values?.[column.id] ?? null} members=${members}
        items=${store.items} onSave=${save} onCancel=${close} />`}
  <//>`;
}

function RenameForm({ label, value, onSave, onDone }) {
  const form = useForm({ name: value });
  const submit = async (event) => {
    event.preventDefault();
    const done = await form.submit(({ name }) => onSave(name.trim()),
      ({ name }) => ({ name: name.trim() ? null : t("nameRequired") }));
    if (done) onDone();
  };
  return html`<form onSubmit=${submit} noValidate>
    <${ErrorSummary} title=${t("saveFailed", { message: "" })} errors=${form.errors} />
    <${Field} name="name" label=${label} value=${form.values.name} onInput=${form.set("name")} error=${form.errors.name} />
    <${Submit} busy=${form.busy}>${t("save")}<//>
  </form>`;
}

/** Rename, move to another group, delete: the actions of one item. */
export function ItemActionsDialog({ item, store, writes, announce, onClose }) {
  const [confirming, setConfirming] = useState(false);
  const [target, setTarget] = useState("");
  const [conflict, setConflict] = useState(null);
  if (!item) return html`<${Dialog} open=${false} title="" onClose=${onClose} />`;
  const others = store.groups.value.filter((group) => group.id !== item.groupId);
  const rename = async (name) => {
    try {
      await writes.rename(item, name);
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      setConflict(error);
      throw new Error(t("conflictTitle"));
    }
  };
  const move = async () => {
    const group = others.find((entry) => entry.id === (target || others[0]?.id));
    if (!group) return;
    try {
      await writes.move(item, group.id);
      announce(t("movedToGroup", { item: item.name, group: group.name }));
      onClose();
    } catch (error) {
      notify(t("saveFailed", { message: error.message }), "error");
    }
  };
  const remove = async () => {
    try {
      await writes.remove(item);
      notify(t("itemDeleted", { item: item.name }));
      onClose();
    } catch (error) {
      notify(t("saveFailed", { message: error.message }), "error");
    }
  };
  return html`<${Dialog} open=${true} title=${item.name} onClose=${onClose}>
    ${conflict && html`<${ConflictNotice} title=${t("conflictTitle")} theirsLabel=${t("conflictTheirs")}
      yoursLabel=${t("conflictYours")} theirs=${conflict.theirs} yours=${conflict.yours}
      keepTheirsLabel=${t("keepTheirs")} overwriteLabel=${t("overwrite")}
      onKeepTheirs=${() => { store.upsert(conflict.item); onClose(); }}
      onOverwrite=${async () => { await writes.rename(conflict.item, conflict.yours); onClose(); }} />`}
    <${RenameForm} label=${t("itemName")} value=${item.name} onSave=${rename} onDone=${onClose} />
    ${others.length > 0 && html`<div class="dialog__section">
      <${Field} as="select" name="group" label=${t("moveToGroup")} value=${target || others[0].id} onInput=${setTarget}>
        ${others.map((group) => html`<option key=${group.id} value=${group.id}>${group.name}</option>`)}
      <//>
      <button type="button" class="button button--secondary" onClick=${move}>${t("moveToGroup")}</button>
    </div>`}
    <div class="dialog__section button-row">
      <button type="button" class="button button--danger" onClick=${() => setConfirming(true)}>${t("deleteItem")}</button>
      <button type="button" class="button button--secondary" onClick=${onClose}>${t("close")}</button>
    </div>
    <${ConfirmDialog} open=${confirming} title=${t("deleteItemTitle", { item: item.name })} message=${t("deleteItemMessage")}
      confirmLabel=${t("deleteItem")} cancelLabel=${t("cancel")} onConfirm=${remove} onClose=${() => setConfirming(false)} />
  <//>`;
}

/** Rename or delete a group. */
export function GroupActionsDialog({ group, store, writes, onClose }) {
  const [confirming, setConfirming] = useState(false);
  if (!group) return html`<${Dialog} open=${false} title="" onClose=${onClose} />`;
  const remove = async () => {
    try {
      await writes.group.remove(group.id);
      onClose();
    } catch (error) {
      setConfirming(false);
      notify(t("saveFailed", { message: error.message }), "error");
    }
  };
  return html`<${Dialog} open=${true} title=${t("groupActions", { group: group.name })} onClose=${onClose}>
    <${RenameForm} label=${t("groupName")} value=${group.name} onSave=${(name) => writes.group.rename(group.id, name)}
      onDone=${onClose} />
    <div class="dialog__section button-row">
      ${store.groups.value.length > 1 && html`<button type="button" class="button button--danger"
        onClick=${() => setConfirming(true)}>${t("deleteGroup")}</button>`}
      <button type="button" class="button button--secondary" onClick=${onClose}>${t("close")}</button>
    </div>
    <${ConfirmDialog} open=${confirming} title=${t("deleteGroupTitle", { group: group.name })}
      message=${t("deleteGroupMessage")} confirmLabel=${t("deleteGroupConfirm")} cancelLabel=${t("cancel")}
      onConfirm=${remove} onClose=${() => setConfirming(false)} />
  <//>`;
}

/** A name for a new group. */
export function AddGroupDialog({ open, writes, onClose }) {
  if (!open) return html`<${Dialog} open=${false} title="" onClose=${onClose} />`;
  return html`<${Dialog} open=${true} title=${t("addGroup")} onClose=${onClose}>
    <${RenameForm} label=${t("newGroupName")} value="" onSave=${(name) => writes.group.create(name)} onDone=${onClose} />
  <//>`;
}

// The board's dialogs: editing one cell (with the 409 conflict choice), an item's actions (rename, move to
// another group, delete) and a group's (rename, delete). Each is the shared native <dialog>, so focus is
// trapped inside and goes back to the control that opened it. Each dialog's state lives in its body, which the
// shared Dialog draws only while open, so a dialog opened again (for another item, say) starts afresh.
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
  const title = editing ? t("editorTitle", { column: editing.column.name, item: editing.item.name }) : "";
  return html`<${Dialog} open=${editing !== null} title=${title} onClose=${onClose}>
    ${editing && html`<${EditBody} editing=${editing} store=${store} writes=${writes} members=${members} close=${onClose} />`}
  <//>`;
}

function EditBody({ editing, store, writes, members, close }) {
  const [conflict, setConflict] = useState(null);
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
  return conflict ? html`<${ConflictNotice} title=${t("conflictTitle")} theirsLabel=${t("conflictTheirs")}
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
        items=${store.items} onSave=${save} onCancel=${close} />`;
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
    <${ErrorSummary} title=${t("problem")} errors=${form.errors} />
    <${Field} name="name" label=${label} value=${form.values.name} onInput=${form.set("name")} error=${form.errors.name} />
    <${Submit} busy=${form.busy}>${t("save")}<//>
  </form>`;
}

/** Rename, move to another group, delete: the actions of one item. */
export function ItemActionsDialog({ item, store, writes, announce, onClose }) {
  return html`<${Dialog} open=${Boolean(item)} title=${item?.name ?? ""} onClose=${onClose}>
    ${item && html`<${ItemActions} item=${item} store=${store} writes=${writes} announce=${announce} onClose=${onClose} />`}
  <//>`;
}

function ItemActions({ item, store, writes, announce, onClose }) {
  const [confirming, setConfirming] = useState(false);
  const [target, setTarget] = useState("");
  const [conflict, setConflict] = useState(null);
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
  return html`
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
      confirmLabel=${t("deleteItem")} cancelLabel=${t("cancel")} onConfirm=${remove} onClose=${() => setConfirming(false)} />`;
}

/** Rename or delete a group. */
export function GroupActionsDialog({ group, store, writes, onClose }) {
  return html`<${Dialog} open=${Boolean(group)} title=${group ? t("groupActions", { group: group.name }) : ""} onClose=${onClose}>
    ${group && html`<${GroupActions} group=${group} store=${store} writes=${writes} onClose=${onClose} />`}
  <//>`;
}

function GroupActions({ group, store, writes, onClose }) {
  const [confirming, setConfirming] = useState(false);
  const remove = async () => {
    try {
      await writes.group.remove(group.id);
      onClose();
    } catch (error) {
      setConfirming(false);
      notify(t("saveFailed", { message: error.message }), "error");
    }
  };
  return html`
    <${RenameForm} label=${t("groupName")} value=${group.name} onSave=${(name) => writes.group.rename(group.id, name)}
      onDone=${onClose} />
    <div class="dialog__section button-row">
      ${store.groups.value.length > 1 && html`<button type="button" class="button button--danger"
        onClick=${() => setConfirming(true)}>${t("deleteGroup")}</button>`}
      <button type="button" class="button button--secondary" onClick=${onClose}>${t("close")}</button>
    </div>
    <${ConfirmDialog} open=${confirming} title=${t("deleteGroupTitle", { group: group.name })}
      message=${t("deleteGroupMessage")} confirmLabel=${t("deleteGroupConfirm")} cancelLabel=${t("cancel")}
      onConfirm=${remove} onClose=${() => setConfirming(false)} />`;
}

/** A name for a new group. */
export function AddGroupDialog({ open, writes, onClose }) {
  return html`<${Dialog} open=${open} title=${t("addGroup")} onClose=${onClose}>
    <${RenameForm} label=${t("newGroupName")} value="" onSave=${(name) => writes.group.create(name)} onDone=${onClose} />
  <//>`;
}

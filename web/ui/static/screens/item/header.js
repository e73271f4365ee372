// The item's header below its h1: the name edited in place (sent with the version it had when editing
// began, so a rename by someone else meanwhile comes back as a 409 and is shown with a choice, never
// overwritten), the item's group, when it was created and last updated, and archive / delete behind a
// confirmation (then back to the board).
import { html, useState } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { navigate } from "../../router.js";
import { boardPath } from "../../links.js";
import { ConflictNotice } from "../../components/conflict.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { Field, ErrorSummary, useForm, Submit } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { Conflict } from "../board/writes.js";
import strings from "../item.strings.js";

const t = catalogue(strings);

/** The rename form; `base` is the item as it was when editing began. */
export function RenameForm({ base, writes, store, onDone }) {
  const form = useForm({ name: base.name });
  const [conflict, setConflict] = useState(null);
  const save = (item, name, options) => form.submit(async () => {
    try {
      await writes.rename(item, name, options);
      notify(t("renamed"));
      onDone();
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      setConflict(error);
    }
  }, () => ({ name: name ? null : t("nameRequired") }));

  if (conflict) {
    return html`<${ConflictNotice} title=${t("renameConflict")} theirsLabel=${t("theirName")} yoursLabel=${t("yourName")}
      theirs=${conflict.theirs} yours=${conflict.yours} keepTheirsLabel=${t("keepTheirs")} overwriteLabel=${t("useMine")}
      onKeepTheirs=${() => { store.putItem(conflict.item); onDone(); }}
      onOverwrite=${() => { const item = conflict.item; setConflict(null); save(item, conflict.yours); }} />`;
  }
  return html`<form class="rename" noValidate onSubmit=${(event) => { event.preventDefault(); save(base, form.values.name.trim()); }}>
    <${ErrorSummary} title=${t("errorSummary")} errors=${form.errors} />
    <${Field} name="name" label=${t("nameLabel")} value=${form.values.name} onInput=${form.set("name")}
      error=${form.errors.name} autocomplete="off" />
    <div class="button-row">
      <${Submit} busy=${form.busy}>${t("saveName")}<//>
      <button type="button" class="button button--secondary" onClick=${onDone}>${t("cancel")}</button>
    </div>
  </form>`;
}

export function ItemMeta({ store }) {
  const item = store.item.value;
  const group = store.groups.value.find((entry) => entry.id === item.groupId);
  return html`<dl class="item-meta">
    <div><dt>${t("group")}</dt><dd>${group && html`<span class="group-swatch" style=${{ background: group.color }}></span>`}
      ${group?.name ?? t("noGroup")}</dd></div>
    <div><dt>${t("created")}</dt><dd><time datetime=${item.createdAt}>${dateTime(item.createdAt)}</time></dd></div>
    <div><dt>${t("updated")}</dt><dd><time datetime=${item.updatedAt}>${dateTime(item.updatedAt)}</time></dd></div>
  </dl>`;
}

/** Archive and Delete, each asking first; afterwards the person is taken back to the board. */
export function ItemActions({ store, writes, onRename, renaming }) {
  const [asking, setAsking] = useState(null); // "archive" | "delete" | null
  const [busy, setBusy] = useState(false);
  const item = store.item.value;
  const run = async () => {
    setBusy(true);
    try {
      if (asking === "archive") await writes.archive(item);
      else await writes.remove(item);
      notify(asking === "archive" ? t("archived", { name: item.name }) : t("deleted", { name: item.name }));
      navigate(boardPath(item.boardId));
    } catch (error) {
      notify(t("actionFailed", { message: error.message }), "error");
      setBusy(false);
      setAsking(null);
    }
  };
  return html`
    <button type="button" class="button button--secondary" aria-expanded=${renaming ? "true" : "false"} onClick=${onRename}>${t("rename")}</button>
    <button type="button" class="button button--secondary" onClick=${() => setAsking("archive")}>${t("archive")}</button>
    <button type="button" class="button button--danger" onClick=${() => setAsking("delete")}>${t("delete")}</button>
    <${ConfirmDialog} open=${asking !== null} busy=${busy}
      title=${asking === "archive" ? t("archiveTitle", { name: item.name }) : t("deleteTitle", { name: item.name })}
      message=${asking === "archive" ? t("archiveMessage") : t("deleteMessage")}
      confirmLabel=${asking === "archive" ? t("archive") : t("delete")} cancelLabel=${t("cancel")}
      onConfirm=${run} onClose=${() => setAsking(null)} />`;
}

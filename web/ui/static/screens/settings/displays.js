// Settings section "Displays" (owners and admins): the wall screens' display links. Creating one for a board
// (name, board picker) shows its link once, with a copy button, since the secret lives only in the link's
// fragment; the list shows each display's board and when its screen was last seen, and revokes one after a
// confirmation (its screen goes dark at once; the list keeps it, marked revoked).
import { html, useState, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { queryAll } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { useForm, FieldError } from "../../components/forms.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList, CreateCard, NewSecret, SecretWithheld } from "./parts.js";
import { BoardPicker } from "./board-picker.js";
import { Loaded } from "./load.js";
import strings from "./displays.strings.js";

const t = catalogue(strings);

/** The displays, each with its board's name (`boardName`, null for a board the admin cannot see). */
async function readDisplays(signal) {
  const { displays } = await api.displays.list({}, { signal });
  const boardIds = [...new Set(displays.map((display) => display.boardId))];
  const names = new Map();
  await Promise.all(boardIds.map(async (id) => {
    try {
      const [board] = await queryAll([["boards.get", { id }]], { signal });
      names.set(id, board.name);
    } catch {
      names.set(id, null);
    }
  }));
  return displays.map((display) => ({ ...display, boardName: names.get(display.boardId) ?? null }));
}

function CreateForm({ onCreated, onWithheld }) {
  const form = useForm({ name: "", board: "" });
  const [round, setRound] = useState(0); // a new picker after each creation, choosing afresh
  const boardNames = useRef(new Map());
  const check = (values) => ({ name: values.name.trim() ? null : t("nameMissing"),
    board: values.board ? null : t("boardMissing") });
  const picked = (boardId, board) => {
    if (board) boardNames.current.set(boardId, board.name);
    form.set("board")(boardId);
  };
  const done = (handler) => (value) => { setRound((n) => n + 1); handler(value); };
  return html`<${CreateCard} id="display-create" form=${form} t=${t} check=${check}
      onCreated=${done((reply) => onCreated({ ...reply, boardName: boardNames.current.get(reply.boardId) ?? null }))}
      onWithheld=${done(onWithheld)} create=${(name, values) => api.displays.create({ name, boardId: values.board })}>
      <fieldset class="display-board">
        <legend>${t("boardLegend")}</legend>
        ${form.errors.board && html`<${FieldError} id="field-board-error" message=${form.errors.board} />`}
        <${BoardPicker} key=${round} onChange=${picked} />
      </fieldset>
    <//>`;
}

function DisplayRow({ display, onRevoke }) {
  return html`<tr>
    <th scope="row" class="credential__name">${display.name}</th>
    <td>${display.boardName ?? t("unknownBoard")}</td>
    <td>${display.lastSeenAt ? dateTime(display.lastSeenAt) : t("never")}</td>
    <td>${dateTime(display.createdAt)}</td>
    <td>${display.revokedAt ? html`<span class="chip chip--revoked">${t("revokedAt", { when: dateTime(display.revokedAt) })}</span>`
      : html`<button type="button" class="button button--secondary button--small"
      aria-label=${t("revokeOf", { name: display.name })} onClick=${() => onRevoke(display)}>${t("revoke")}</button>`}</td>
  </tr>`;
}

export default function Section() {
  const list = useList(readDisplays);
  const [shown, setShown] = useState(null); // {title, url} of a display just made, or {title, message} if withheld
  const [asking, setAsking] = useState(null); // the display awaiting the revoke confirmation
  const [busy, setBusy] = useState(false);
  const listHeading = useRef(null);
  const created = (display) => {
    const { url, ...rest } = display;
    list.upsert({ ...rest, lastSeenAt: null });
    setShown({ title: t("newTitle", { name: display.name }), url });
    notify(t("created", { name: display.name }));
  };
  const withheld = (name) => {
    list.reload();
    setShown({ title: t("withheldTitle", { name }), message: t("withheldMessage") });
  };
  const revoke = async () => {
    setBusy(true);
    try {
      await api.displays.revoke({ id: asking.id });
      list.upsert({ id: asking.id, revokedAt: new Date().toISOString() });
      notify(t("revoked", { name: asking.name }));
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
      setAsking(null);
    }
  };
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro")}</p>
    ${shown?.message && html`<${SecretWithheld} title=${shown.title} message=${shown.message}
      onDone=${() => setShown(null)} />`}
    ${shown?.url && html`<${NewSecret} title=${shown.title} label=${t("newLabel")} value=${shown.url}
      onDone=${() => setShown(null)}>
      <p><a href=${shown.url} target="_blank" rel="noopener">${t("open")}</a></p>
    <//>`}
    <${CreateForm} onCreated=${created} onWithheld=${withheld} />
    <h3 tabindex="-1" ref=${listHeading}>${t("listTitle")}</h3>
    <${Loaded} state=${list}>${(displays) => (displays.length === 0 ? html`<p class="empty">${t("empty")}</p>`
      : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("listTitle")}</caption>
        <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("board")}</th>
          <th scope="col">${t("lastSeen")}</th><th scope="col">${t("created_column")}</th>
          <th scope="col">${t("actions")}</th></tr></thead>
        <tbody>${displays.map((display) => html`<${DisplayRow} key=${display.id} display=${display}
          onRevoke=${setAsking} />`)}</tbody>
      </table></div>`)}<//>
    <${ConfirmDialog} open=${asking !== null} title=${t("revokeTitle")}
      message=${asking ? t("revokeMessage", { name: asking.name }) : ""} confirmLabel=${t("revoke")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${revoke} onClose=${() => setAsking(null)}
      focusAfter=${listHeading} />`;
}

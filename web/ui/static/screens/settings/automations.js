// Settings section "Automations": pick a board, then its rules (name, trigger, an enabled switch, last run),
// adding and editing a rule in a dialog, deleting one after a confirmation, "Run now", and the board's run
// history. Guests see the rules and runs without the controls that change them (members and up may). (The
// settings frame shows plans without automations the plan message instead.)
import { html, useState, useEffect, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { queryAll, queryPages } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { dateTime } from "../../format.js";
import { Dialog, ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { role } from "../../session.js";
import { useLoad, Loaded } from "./load.js";
import { BoardPicker } from "./board-picker.js";
import { RuleForm } from "./automation-form.js";
import { RunHistory } from "./automation-runs.js";
import strings from "./automations.strings.js";

const t = catalogue(strings);

async function readBoard(boardId, signal) {
  const [{ automations }, board] = await queryAll([["automations.list", { boardId }], ["boards.get", { id: boardId }]],
    { signal });
  const members = await queryPages("organizations.members.list", {}, "members");
  return { rules: automations, board, members };
}

function RuleRow({ rule, mayChange, onToggle, onRun, onEdit, onDelete }) {
  // The switch moves at once; it moves back when the server refuses.
  const [enabled, setEnabled] = useState(rule.enabled);
  useEffect(() => setEnabled(rule.enabled), [rule.enabled]);
  const flip = async (value) => {
    setEnabled(value);
    if (!(await onToggle(value))) setEnabled(!value);
  };
  return html`<tr>
    <th scope="row">${rule.name}</th>
    <td>${t(`trigger.${rule.trigger.type}`)}</td>
    <td><label class="checkbox checkbox--plain">
      <input type="checkbox" role="switch" aria-label=${t("enabledOf", { name: rule.name })} checked=${enabled}
        disabled=${!mayChange}
        onChange=${(event) => flip(event.currentTarget.checked)} />
      <span>${t("enabled")}</span>
    </label></td>
    <td>${rule.lastExecutedAt ? dateTime(rule.lastExecutedAt) : t("never")}<br />
      <span class="hint">${t("runs", { count: rule.executionCount })}</span></td>
    <td>${mayChange && html`<div class="row-actions">
      <button type="button" class="button button--primary button--small" aria-label=${t("runNowOf", { name: rule.name })}
        onClick=${onRun}>${t("runNow")}</button>
      <button type="button" class="button button--secondary button--small" aria-label=${t("editOf", { name: rule.name })}
        onClick=${onEdit}>${t("edit")}</button>
      <button type="button" class="button button--quiet button--small" aria-label=${t("deleteOf", { name: rule.name })}
        onClick=${onDelete}>${t("delete")}</button>
    </div>`}</td>
  </tr>`;
}

function BoardRules({ boardId }) {
  const state = useLoad((signal) => readBoard(boardId, signal), [boardId]);
  const history = useLoad((signal) => api.automations.getExecutionHistory({ boardId, limit: 20 }, { signal }), [boardId]);
  const [editing, setEditing] = useState(null); // null: closed, {}: adding, a rule: editing it
  const [deleting, setDeleting] = useState(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState("");
  const add = useRef(null); // where focus goes when the deleted rule's row took its button away
  const mayChange = ["owner", "admin", "member"].includes(role.value ?? "");
  const act = async (work, after) => {
    try {
      const message = await work();
      notify(message);
      after?.(message);
      state.reload();
      return true;
    } catch (error) {
      notify(error.message, "error");
      return false;
    }
  };
  const toggle = (rule) => (enabled) => act(async () => {
    await api.automations.toggle({ id: rule.id, enabled });
    return t(enabled ? "turnedOn" : "turnedOff", { name: rule.name });
  });
  const run = (rule) => () => act(async () => {
    const reply = await api.automations.runNow({ ruleId: rule.id });
    return reply.executedCount ? t("queued", { count: reply.executedCount, name: rule.name }) : t("queuedNone", { name: rule.name });
  }, (message) => { setOutcome(message); history.reload(); });
  const remove = async () => {
    setBusy(true);
    await act(async () => { await api.automations.delete({ id: deleting.id }); return t("deleted"); }, () => {
      // Dropped at once, so the row is gone when the dialog closes (the rules are read again after).
      state.update((data) => ({ ...data, rules: data.rules.filter((rule) => rule.id !== deleting.id) }));
      setDeleting(null);
    });
    setBusy(false);
  };
  return html`<${Loaded} state=${state}>${({ rules, board, members }) => html`
    ${mayChange && html`<div class="button-row"><button type="button" class="button button--primary" ref=${add}
      onClick=${() => setEditing({})}>${t("add")}</button></div>`}
    <p role="status" class=${outcome ? "notice notice--success" : ""}>${outcome}</p>
    ${rules.length === 0 ? html`<p class="empty">${t("empty")}</p>` : html`<div class="table-scroll"><table class="table">
      <caption class="visually-hidden">${t("title")}</caption>
      <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("trigger")}</th><th scope="col">${t("enabled")}</th>
        <th scope="col">${t("lastRun")}</th><th scope="col">${t("actions")}</th></tr></thead>
      <tbody>${rules.map((rule) => html`<${RuleRow} key=${rule.id} rule=${rule} mayChange=${mayChange} onToggle=${toggle(rule)} onRun=${run(rule)}
        onEdit=${() => setEditing(rule)} onDelete=${() => setDeleting(rule)} />`)}</tbody>
    </table></div>`}
    <${RunHistory} boardId=${boardId} rules=${rules} board=${board} history=${history} onRefresh=${state.reload} />
    <${Dialog} open=${editing !== null} wide title=${editing?.id ? t("editTitle") : t("createTitle")}
        onClose=${() => setEditing(null)}>
      ${editing !== null && html`<${RuleForm} rule=${editing.id ? editing : null} boardId=${boardId} board=${board}
        members=${members} onCancel=${() => setEditing(null)}
        onDone=${() => { notify(editing.id ? t("saved") : t("created")); setEditing(null); state.reload(); }} />`}
    <//>
    <${ConfirmDialog} open=${deleting !== null} title=${t("deleteTitle")}
      message=${deleting ? t("deleteMessage", { name: deleting.name }) : ""} confirmLabel=${t("deleteConfirm")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${remove} onClose=${() => setDeleting(null)}
      focusAfter=${add} />`}<//>`;
}

export default function Section() {
  const [boardId, setBoardId] = useState("");
  return html`<h2>${t("title")}</h2>
    <p>${t("intro")}</p>
    <${BoardPicker} onChange=${setBoardId} />
    ${boardId && html`<${BoardRules} key=${boardId} boardId=${boardId} />`}`;
}

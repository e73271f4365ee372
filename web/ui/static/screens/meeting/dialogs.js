// The meeting's dialogs: create an action on the spot (title, owner, due date, priority), complete the meeting
// (notes), and, from the action screen, escalate an action (reason and to whom). Each writes through
// `onSubmit(values)`, which throws the server's refusal for the form to show by field.
import { html } from "../../lib.js";
import { localDay } from "../../format.js";
import { Field } from "../../components/forms.js";
import { FormDialog, EscalateDialog } from "../action/dialogs.js";

export { EscalateDialog };

const PRIORITIES = ["critical", "high", "medium", "low"];
const TITLE_LIMIT = 500;

export function CreateActionDialog({ t, open, members, onSubmit, onClose }) {
  const check = (values) => ({
    title: !values.title.trim() ? t("actionTitleMissing") : values.title.length > TITLE_LIMIT ? t("actionTitleTooLong") : null,
    assigneeId: values.assigneeId ? null : t("ownerMissing"),
    dueDate: !values.dueDate ? t("dueMissing") : /^\d{4}-\d{2}-\d{2}$/.test(values.dueDate) ? null : t("dueInvalid"),
  });
  return html`<${FormDialog} t=${t} open=${open} title=${t("createActionTitle")}
    initial=${{ title: "", assigneeId: "", dueDate: localDay(Date.now()), priority: "medium" }} check=${check}
    submitLabel=${t("createAction")} onSubmit=${onSubmit} onClose=${onClose}>
    ${(form) => html`
      <${Field} name="title" label=${t("actionTitle")} value=${form.values.title} onInput=${form.set("title")}
        error=${form.errors.title} required autocomplete="off" />
      <${Field} name="assigneeId" as="select" label=${t("owner")} value=${form.values.assigneeId}
        onInput=${form.set("assigneeId")} error=${form.errors.assigneeId} required>
        <option value="">${t("choose")}</option>
        ${members.map((member) => html`<option key=${member.id} value=${member.id}>${member.name}</option>`)}
      <//>
      <${Field} name="dueDate" type="date" label=${t("due")} value=${form.values.dueDate} onInput=${form.set("dueDate")}
        error=${form.errors.dueDate} required />
      <${Field} name="priority" as="select" label=${t("priority")} value=${form.values.priority}
        onInput=${form.set("priority")} error=${form.errors.priority}>
        ${PRIORITIES.map((priority) => html`<option key=${priority} value=${priority}>${t(`priority_${priority}`)}</option>`)}
      <//>`}
  <//>`;
}

export function CompleteDialog({ t, open, onSubmit, onClose }) {
  return html`<${FormDialog} t=${t} open=${open} title=${t("completeTitle")} initial=${{ notes: "" }}
    check=${(values) => ({ notes: values.notes.length > 10_000 ? t("notesTooLong") : null })}
    submitLabel=${t("complete")} onSubmit=${onSubmit} onClose=${onClose}>
    ${(form) => html`<${Field} name="notes" as="textarea" label=${t("notes")} hint=${t("notesHint")}
      value=${form.values.notes} onInput=${form.set("notes")} error=${form.errors.notes} />`}
  <//>`;
}

// The action screen's dialogs: escalate (reason and to whom), de-escalate (reason), verify or send back (a
// note). Each is a GOV.UK-style form; `onSubmit(values)` writes and throws ApiError on a refusal.
import { html, useEffect } from "../../lib.js";
import { Dialog } from "../../components/dialog.js";
import { Field, ErrorSummary, Submit, useForm } from "../../components/forms.js";

/** A dialog holding one form: `children(form)` draws its fields; it closes once `onSubmit(values)` succeeds. */
export function FormDialog({ t, open, title, initial, check, submitLabel, onSubmit, onClose, children }) {
  const form = useForm(initial);
  useEffect(() => { if (open) form.reset(); }, [open]);
  const submit = async (event) => {
    event.preventDefault();
    if (await form.submit(onSubmit, check)) onClose();
  };
  return html`<${Dialog} open=${open} title=${title} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
      ${children(form)}
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${submitLabel}<//>
        <button type="button" class="button button--secondary" onClick=${onClose}>${t("cancel")}</button>
      </div>
    </form>
  <//>`;
}

const reasonField = (t, form) => html`<${Field} name="reason" as="textarea" label=${t("reason")} hint=${t("reasonHint")}
  value=${form.values.reason} onInput=${form.set("reason")} error=${form.errors.reason} required />`;

export function EscalateDialog({ t, open, members, onSubmit, onClose }) {
  const check = (values) => ({
    escalateToUserId: values.escalateToUserId ? null : t("escalateToMissing"),
    reason: values.reason.trim() ? null : t("reasonMissing"),
  });
  return html`<${FormDialog} t=${t} open=${open} title=${t("escalateTitle")} initial=${{ escalateToUserId: "", reason: "" }}
    check=${check} submitLabel=${t("escalate")} onSubmit=${onSubmit} onClose=${onClose}>
    ${(form) => html`
      <${Field} name="escalateToUserId" as="select" label=${t("escalateTo")} value=${form.values.escalateToUserId}
        onInput=${form.set("escalateToUserId")} error=${form.errors.escalateToUserId} required>
        <option value="">${t("choose")}</option>
        ${members.map((member) => html`<option key=${member.id} value=${member.id}>${member.name}</option>`)}
      <//>
      ${reasonField(t, form)}`}
  <//>`;
}

export function DeescalateDialog({ t, open, onSubmit, onClose }) {
  const check = (values) => ({ reason: values.reason.trim() ? null : t("reasonMissing") });
  return html`<${FormDialog} t=${t} open=${open} title=${t("deescalateTitle")} initial=${{ reason: "" }}
    check=${check} submitLabel=${t("deescalate")} onSubmit=${onSubmit} onClose=${onClose}>
    ${(form) => reasonField(t, form)}
  <//>`;
}

/** `verified` true verifies the completed action, false sends it back to in progress. */
export function VerifyDialog({ t, open, verified, onSubmit, onClose }) {
  return html`<${FormDialog} t=${t} open=${open} title=${verified ? t("verifyTitle") : t("sendBackTitle")}
    initial=${{ verificationNote: "" }} check=${() => ({})} submitLabel=${verified ? t("verify") : t("sendBack")}
    onSubmit=${onSubmit} onClose=${onClose}>
    ${(form) => html`<${Field} name="verificationNote" as="textarea" label=${t("note")} hint=${t("noteHint")}
      value=${form.values.verificationNote} onInput=${form.set("verificationNote")} error=${form.errors.verificationNote} />`}
  <//>`;
}

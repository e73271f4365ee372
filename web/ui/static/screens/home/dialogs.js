// The home screen's dialogs: naming a workspace, project or board (to create or rename it), and building a
// board from a template (the vendor's lean templates, the SQCDP tier board first, then the organization's
// own). Each is a GOV.UK-style form in a native dialog; the caller does the write and says where to go next.
import { html, useEffect, useState } from "../../lib.js";
import { queryAll } from "../../api.js";
import { Dialog } from "../../components/dialog.js";
import { Field, ErrorSummary, Submit, useForm } from "../../components/forms.js";
import { Loading, LoadError } from "../../components/page.js";

const NAME_LIMIT = 100;
const FIRST_TEMPLATE = "tpl_vendor_sqcdp";

/** The empty-or-too-long check every name here shares (the server's limit is 1 to 100 characters). */
function checkName(t, value, field) {
  const name = value.trim();
  if (!name) return { [field]: t("nameMissing") };
  if (name.length > NAME_LIMIT) return { [field]: t("nameTooLong", { count: NAME_LIMIT }) };
  return {};
}

/**
 * Ask for a name: `onSubmit(name)` writes (throwing ApiError on a refusal, shown in the form).
 */
export function NameDialog({ t, open, title, label, hint, initial = "", submitLabel, onSubmit, onClose }) {
  const form = useForm({ name: initial });
  useEffect(() => { if (open) form.reset(); }, [open]);
  const submit = async (event) => {
    event.preventDefault();
    const done = await form.submit((values) => onSubmit(values.name.trim()), (values) => checkName(t, values.name, "name"));
    if (done) onClose();
  };
  return html`<${Dialog} open=${open} title=${title} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
      <${Field} name="name" label=${label} hint=${hint} value=${form.values.name} onInput=${form.set("name")}
        error=${form.errors.name} autocomplete="off" required />
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${submitLabel}<//>
        <button type="button" class="button button--secondary" onClick=${onClose}>${t("cancel")}</button>
      </div>
    </form>
  <//>`;
}

/** The vendor's templates (the SQCDP board first) and the organization's, in one request. */
async function loadTemplates() {
  const [vendor, tenant] = await queryAll([["templates.listVendor", {}], ["templates.listTenant", {}]]);
  const ordered = [...vendor.templates].sort((a, b) => Number(b.id === FIRST_TEMPLATE) - Number(a.id === FIRST_TEMPLATE));
  return { vendor: ordered, tenant: tenant.templates };
}

function TemplateChoice({ t, template, checked, onChoose }) {
  const id = `template-${template.id}`;
  const parts = template.isVendor === false ? null
    : t("templateParts", { groups: t("templateGroups", { count: template.groups }),
      columns: t("templateColumns", { count: template.columns }), kpis: t("templateKpis", { count: template.kpis }) });
  return html`<div class="template-choice">
    <input type="radio" id=${id} name="templateId" value=${template.id} checked=${checked}
      aria-describedby=${`${id}-hint`} onChange=${() => onChoose(template.id)} />
    <label for=${id} class="template-choice__name">${template.name}</label>
    <p class="template-choice__hint" id=${`${id}-hint`}>${template.description ?? ""}${parts ? ` ${parts}` : ""}</p>
  </div>`;
}

/**
 * Build a board from a template in the project: `onCreate(templateId, boardName)` writes and moves on.
 */
export function TemplateDialog({ t, open, projectName, onCreate, onClose }) {
  const [templates, setTemplates] = useState(null);
  const [loadError, setLoadError] = useState(null);
  const form = useForm({ templateId: FIRST_TEMPLATE, boardName: "" });
  const read = () => {
    setLoadError(null);
    loadTemplates().then(setTemplates, setLoadError);
  };
  useEffect(() => {
    if (!open) return;
    form.reset();
    if (!templates) read();
  }, [open]);
  const submit = async (event) => {
    event.preventDefault();
    await form.submit((values) => onCreate(values.templateId, values.boardName.trim()), (values) => ({
      ...(values.templateId ? {} : { templateId: t("templateMissing") }),
      ...checkName(t, values.boardName, "boardName"),
    }));
  };
  const group = (legend, list) => list.length > 0 && html`<fieldset class="template-group">
    <legend>${legend}</legend>
    ${list.map((template) => html`<${TemplateChoice} key=${template.id} t=${t} template=${template}
      checked=${form.values.templateId === template.id} onChoose=${form.set("templateId")} />`)}
  </fieldset>`;
  let body;
  if (loadError) body = html`<${LoadError} title=${t("templatesFailed")} error=${loadError} retryLabel=${t("retry")} onRetry=${read} />`;
  else if (!templates) body = html`<${Loading} label=${t("loadingTemplates")} />`;
  else {
    body = html`<form onSubmit=${submit} novalidate>
      <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
      <div id="field-templateId" tabindex="-1" class=${form.errors.templateId ? "field--error" : ""}>
        ${form.errors.templateId && html`<p class="field-error">${form.errors.templateId}</p>`}
        ${group(t("vendorTemplates"), templates.vendor)}
        ${group(t("tenantTemplates"), templates.tenant)}
      </div>
      <${Field} name="boardName" label=${t("boardName")} hint=${t("boardNameHint", { project: projectName })}
        value=${form.values.boardName} onInput=${form.set("boardName")} error=${form.errors.boardName}
        autocomplete="off" required />
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t("creating")}>${t("createBoard")}<//>
        <button type="button" class="button button--secondary" onClick=${onClose}>${t("cancel")}</button>
      </div>
    </form>`;
  }
  return html`<${Dialog} open=${open} wide title=${t("fromTemplateTitle")} onClose=${onClose}>${body}<//>`;
}

// The item's sub-items: each a link to its own page with its status (the board's first status column, shown
// as the board shows it), and a form to add one (items.create with `parentId`, in the item's group).
import { html } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { itemPath } from "../../links.js";
import { Field, ErrorSummary, useForm, Submit } from "../../components/forms.js";
import { CellValue } from "../board/cells.js";
import strings from "../item.strings.js";

const t = catalogue(strings);

export function SubItems({ store, writes }) {
  const form = useForm({ subName: "" });
  const item = store.item.value;
  const subs = store.subItems.value;
  const status = store.columns.value.find((column) => column.type === "status");
  const add = async (event) => {
    event.preventDefault();
    const done = await form.submit(({ subName }) => writes.addSubItem(item.groupId, subName.trim()),
      ({ subName }) => ({ subName: subName.trim() ? null : t("subNameRequired") }));
    if (done) form.reset();
  };
  return html`<section class="item-section" aria-labelledby="item-subs-title">
    <h2 id="item-subs-title">${t("subItemsTitle", { count: subs.length })}</h2>
    ${subs.length === 0 ? html`<p class="empty">${t("noSubItems")}</p>`
      : html`<ul class="subitems">${subs.map((sub) => html`<li key=${sub.id} class="subitem">
          <a href=${itemPath(sub.id)} class="subitem__name">${sub.name}</a>
          ${status && html`<span class="subitem__status"><span class="visually-hidden">${status.name}: </span>${
            sub.values?.[status.id] ? html`<${CellValue} column=${status} value=${sub.values[status.id]} />`
              : html`<span class="item-field__empty">${t("noValue")}</span>`}</span>`}
        </li>`)}</ul>`}
    <form class="subitems__add" noValidate onSubmit=${add}>
      <${ErrorSummary} title=${t("errorSummary")} errors=${form.errors} />
      <${Field} name="subName" label=${t("newSubItem")} value=${form.values.subName} onInput=${form.set("subName")}
        error=${form.errors.subName} autocomplete="off" />
      <${Submit} busy=${form.busy} kind="secondary">${t("addSubItem")}<//>
    </form>
  </section>`;
}

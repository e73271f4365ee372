// Settings section "Activity": the organization's trail (activity.listByOrg, newest first, 30 a page, "Show
// more" for older pages), each entry with who, what and when and a link to the entity where it has a page.
// activity.listByOrg takes no filters, so the kind, person and date filters narrow the entries loaded so
// far (the section says so).
import { html, useState, useMemo } from "../../lib.js";
import { api } from "../../api/client.js";
import { catalogue } from "../../i18n.js";
import { dateTime, ago, localDay } from "../../format.js";
import { entityPath } from "../../links.js";
import { Field } from "../../components/forms.js";
import { notify } from "../../components/notices.js";
import { useLoad, Loaded } from "./load.js";
import strings from "./activity.strings.js";

const t = catalogue(strings);
const NONE = { entityType: "", person: "", from: "", to: "" };

/** "item.created" -> "item created": an identifier as words, for one the catalogue does not know. */
const words = (action) => String(action).replace(/[._]/g, " ");
/** An action ("action.item.created") or entity type ("entity.item") in the catalogue's words. */
const named = (kind, id) => (strings[`${kind}.${id}`] === undefined ? words(id) : t(`${kind}.${id}`));

function matches(entry, filters) {
  const day = localDay(entry.createdAt); // the date filters hold days where the viewer is
  return (!filters.entityType || entry.entityType === filters.entityType)
    && (!filters.person || (entry.actor?.id ?? "-") === filters.person)
    && (!filters.from || day >= filters.from) && (!filters.to || day <= filters.to);
}

function Filters({ entries, filters, onChange }) {
  const kinds = [...new Set(entries.map((entry) => entry.entityType))].sort();
  const people = [...new Map(entries.map((entry) => [entry.actor?.id ?? "-", entry.actor?.name ?? t("system")]))];
  const set = (key) => (value) => onChange({ ...filters, [key]: value });
  return html`<fieldset class="activity-filters">
    <legend>${t("filtersTitle")}</legend>
    <p class="hint">${t("filtersHint")}</p>
    <div class="activity-filters__fields">
      <${Field} as="select" name="entityType" label=${t("entityType")} value=${filters.entityType} onInput=${set("entityType")}>
        <option value="">${t("any")}</option>
        ${kinds.map((kind) => html`<option key=${kind} value=${kind}>${named("entity", kind)}</option>`)}
      <//>
      <${Field} as="select" name="person" label=${t("person")} value=${filters.person} onInput=${set("person")}>
        <option value="">${t("any")}</option>
        ${people.map(([id, name]) => html`<option key=${id} value=${id}>${name}</option>`)}
      <//>
      <${Field} name="from" type="date" label=${t("from")} value=${filters.from} onInput=${set("from")} />
      <${Field} name="to" type="date" label=${t("to")} value=${filters.to} onInput=${set("to")} />
    </div>
    <button type="button" class="button button--quiet" onClick=${() => onChange(NONE)}>${t("clear")}</button>
  </fieldset>`;
}

function Entry({ entry }) {
  const path = entityPath(entry.entityType, entry.entityId);
  const name = entry.metadata?.name ?? entry.metadata?.title ?? entry.entityId;
  return html`<tr>
    <td><time datetime=${entry.createdAt} title=${dateTime(entry.createdAt)}>${dateTime(entry.createdAt)}</time>
      <br /><span class="hint">${ago(entry.createdAt)}</span></td>
    <td>${entry.actor ? html`${entry.actor.name}<br /><span class="hint">${entry.actor.email}</span>` : t("system")}</td>
    <td>${named("action", entry.action)}</td>
    <td>${named("entity", entry.entityType)}: ${path ? html`<a href=${path}>${name}</a>` : name}</td>
  </tr>`;
}

export default function Section() {
  const first = useLoad((signal) => api.activity.listByOrg({}, { signal }), []);
  const [older, setOlder] = useState({ entries: [], cursor: undefined, busy: false });
  const [filters, setFilters] = useState(NONE);
  const cursor = older.cursor === undefined ? first.data?.nextCursor : older.cursor;
  const entries = useMemo(() => [...(first.data?.entries ?? []), ...older.entries], [first.data, older.entries]);
  const shown = entries.filter((entry) => matches(entry, filters));
  const more = async () => {
    setOlder((old) => ({ ...old, busy: true }));
    try {
      const page = await api.activity.listByOrg({ cursor });
      setOlder((old) => ({ entries: [...old.entries, ...page.entries], cursor: page.nextCursor, busy: false }));
    } catch (error) {
      notify(error.message, "error");
      setOlder((old) => ({ ...old, busy: false }));
    }
  };
  return html`<h2>${t("title")}</h2>
    <p>${t("intro")}</p>
    <${Loaded} state=${first}>${() => entries.length === 0 ? html`<p class="empty">${t("empty")}</p>` : html`
      <${Filters} entries=${entries} filters=${filters} onChange=${setFilters} />
      <p role="status" class="hint">${t("shown", { count: shown.length })}</p>
      ${shown.length === 0 ? html`<p class="empty">${t("noneMatch")}</p>` : html`<div class="table-scroll"><table class="table">
        <caption class="visually-hidden">${t("title")}</caption>
        <thead><tr><th scope="col">${t("when")}</th><th scope="col">${t("who")}</th><th scope="col">${t("what")}</th>
          <th scope="col">${t("on")}</th></tr></thead>
        <tbody>${shown.map((entry) => html`<${Entry} key=${entry.id} entry=${entry} />`)}</tbody>
      </table></div>`}
      ${cursor && html`<button type="button" class="button button--secondary" disabled=${older.busy} onClick=${more}>
        ${older.busy ? t("loadingMore") : t("showMore")}</button>`}`}<//>`;
}

// The board's kanban view: one lane per label of a status column (the first, or the one chosen when there
// are several) plus a lane for items without a status; a card per item with its name and key fields. A card
// changes lane by dragging it (pointer) or by its "Move to…" menu (keyboard); each lane can add a card.
import { html, useState, useRef, useId } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { itemPath } from "../../links.js";
import { notify } from "../../components/notices.js";
import { CellValue } from "./cells.js";
import { inkOn } from "./cell_values.js";
import { Conflict } from "./writes.js";
import strings from "../board.strings.js";

const t = catalogue(strings);
const CARDS_SHOWN = 100; // per lane until "show all": a lane of thousands would be no use to read anyway
const KEY_TYPES = new Set(["people", "date", "priority", "timeline", "number", "progress"]);
const NO_LABEL = "";

function MoveMenu({ item, lanes, current, onMove }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return html`<div class="card__move">
    <button type="button" class="button button--quiet button--small" aria-expanded=${open ? "true" : "false"}
      aria-controls=${id} onClick=${() => setOpen(!open)}>${t("moveTo")}<span class="visually-hidden"> ${item.name}</span></button>
    ${open && html`<ul id=${id} class="card__lanes" aria-label=${t("moveToLane", { item: item.name })}>
      ${lanes.filter((lane) => lane.id !== current).map((lane) => html`<li key=${lane.id}>
        <button type="button" class="button button--secondary button--small" onClick=${() => { setOpen(false); onMove(item, lane); }}>
          ${lane.name}</button></li>`)}
    </ul>`}
  </div>`;
}

function Card({ item, fields, members, items, lanes, current, onMove, dragged }) {
  return html`<li class="card kanban__card" draggable="true"
      onDragStart=${(event) => { dragged.current = item; event.dataTransfer.setData("text/plain", item.id); }}>
    <a class="kanban__name" href=${itemPath(item.id)}>${item.name}</a>
    <dl class="kanban__fields">${fields.filter((column) => item.values?.[column.id] !== undefined).map((column) => html`
      <div key=${column.id}><dt>${column.name}</dt><dd><${CellValue} column=${column} value=${item.values[column.id]}
        members=${members} items=${items} /></dd></div>`)}</dl>
    <${MoveMenu} item=${item} lanes=${lanes} current=${current} onMove=${onMove} />
  </li>`;
}

function AddCard({ lane, onAdd }) {
  const [text, setText] = useState("");
  const [error, setError] = useState(null);
  const id = useId();
  const submit = async (event) => {
    event.preventDefault();
    if (!text.trim()) { setError(t("nameRequired")); return; }
    try {
      await onAdd(text.trim(), lane);
      setText("");
      setError(null);
    } catch (failure) {
      setError(failure.message);
    }
  };
  return html`<form class="add-row kanban__add" onSubmit=${submit} noValidate>
    <label for=${id} class="add-row__label">${t("addCard")}</label>
    <input id=${id} class="input" aria-label=${t("newCardName", { label: lane.name })} value=${text}
      onInput=${(e) => setText(e.currentTarget.value)} />
    <button type="submit" class="button button--secondary button--small">${t("add")}</button>
    ${error && html`<span class="field-error" role="alert">${error}</span>`}
  </form>`;
}

export function KanbanView({ store, writes, members, announce }) {
  const statuses = store.columns.value.filter((column) => column.type === "status");
  const [chosen, setChosen] = useState(null);
  const [showAll, setShowAll] = useState(() => new Set());
  const dragged = useRef(null);
  const pickId = useId();
  store.revision.value; // eslint-disable-line no-unused-expressions -- redraw on item changes
  const column = statuses.find((entry) => entry.id === chosen) ?? statuses[0];
  if (!column) return html`<p class="empty">${t("noStatusColumn")}</p>`;
  const lanes = [...(column.config?.labels ?? []), { id: NO_LABEL, name: t("noLabel"), color: null }];
  const byLane = new Map(lanes.map((lane) => [lane.id, []]));
  const order = new Map(store.groups.value.map((group, index) => [group.id, index]));
  const all = [...store.items.values()].sort((a, b) => (order.get(a.groupId) ?? 0) - (order.get(b.groupId) ?? 0)
    || a.position - b.position);
  for (const item of all) (byLane.get(item.values?.[column.id]?.id ?? NO_LABEL) ?? byLane.get(NO_LABEL)).push(item);
  const fields = store.columns.value.filter((entry) => KEY_TYPES.has(entry.type)).slice(0, 3);

  const moveTo = async (item, lane) => {
    const base = item.values?.[column.id] ?? null;
    try {
      await writes.setValue(item, column.id, lane.id === NO_LABEL ? null : { id: lane.id }, base);
      announce(t("movedToLane", { item: item.name, label: lane.name }));
    } catch (error) {
      notify(error instanceof Conflict ? t("conflictTitle") : t("saveFailed", { message: error.message }), "error");
    }
  };
  const add = async (name, lane) => {
    const groupId = store.groups.value[0]?.id;
    await writes.create(groupId, name, lane.id === NO_LABEL ? {} : { values: { [column.id]: { id: lane.id } } });
    announce(t("itemAdded", { item: name }));
  };

  return html`<div class="kanban">
    ${statuses.length > 1 && html`<div class="kanban__by">
      <label for=${pickId}>${t("kanbanBy")}</label>
      <select id=${pickId} class="input" value=${column.id} onChange=${(event) => setChosen(event.currentTarget.value)}>
        ${statuses.map((entry) => html`<option key=${entry.id} value=${entry.id}>${entry.name}</option>`)}
      </select></div>`}
    <div class="kanban__lanes">
      ${lanes.map((lane) => {
        const cards = byLane.get(lane.id);
        const shown = showAll.has(lane.id) ? cards : cards.slice(0, CARDS_SHOWN);
        const headingId = `lane-${lane.id || "none"}`;
        return html`<section key=${lane.id} class="kanban__lane" aria-labelledby=${headingId}
            onDragOver=${(event) => event.preventDefault()}
            onDrop=${(event) => {
              event.preventDefault();
              const item = dragged.current;
              dragged.current = null;
              if (item && (item.values?.[column.id]?.id ?? NO_LABEL) !== lane.id) moveTo(item, lane);
            }}>
          <h2 class="kanban__title" style=${lane.color ? { background: lane.color, color: inkOn(lane.color) } : undefined}>
            <span id=${headingId}>${lane.name}</span> <span class="kanban__count">${t("laneCards", { count: cards.length })}</span></h2>
          <ul class="kanban__cards">${shown.map((item) => html`<${Card} key=${item.id} item=${item} fields=${fields}
            members=${members} items=${store.items} lanes=${lanes} current=${lane.id} onMove=${moveTo} dragged=${dragged} />`)}</ul>
          ${shown.length < cards.length && html`<button type="button" class="button button--quiet"
            onClick=${() => setShowAll(new Set([...showAll, lane.id]))}>${t("laneCards", { count: cards.length })}</button>`}
          <${AddCard} lane=${lane} onAdd=${add} />
        </section>`;
      })}
    </div>
  </div>`;
}

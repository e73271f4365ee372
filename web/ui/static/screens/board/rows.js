// The rows of the board's table, one component per kind: a group's header (colour, name, count, collapse,
// select all, actions), an item (select, name linking to its page, a cell per column, move up/down, more
// actions, sub-items expander), a sub-item, and the "add item" / "add sub-item" rows. Every row has the same
// height (the table is virtualised on it) and its aria-rowindex.
import { html, useState, useRef, useLayoutEffect } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { itemPath } from "../../links.js";
import { CellValue } from "./cells.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

// Types whose value holds its own links: the cell shows the value beside an edit button, never inside one.
const LINKED_TYPES = new Set(["link", "url", "email", "phone", "file"]);

function Cell({ item, column, members, items, onEdit }) {
  const value = item.values?.[column.id];
  const label = t("edit", { column: column.name, item: item.name });
  if (LINKED_TYPES.has(column.type)) {
    return html`<td class="cell"><div class="cell__split">
      <${CellValue} column=${column} value=${value} members=${members} items=${items} />
      <button type="button" class="button button--quiet button--small cell__edit" aria-label=${label}
        onClick=${() => onEdit(item, column)}>✎</button></div></td>`;
  }
  return html`<td class="cell"><button type="button" class="cell__button" onClick=${() => onEdit(item, column)}>
    <span class="visually-hidden">${label}: </span>
    <${CellValue} column=${column} value=${value} members=${members} items=${items} /></button></td>`;
}

export function GroupRow({ group, count, index, span, selection, groupIds, writes, onActions }) {
  const chosen = groupIds.filter((id) => selection.value.has(id)).length;
  const all = groupIds.length > 0 && chosen === groupIds.length;
  const box = useRef(null);
  useLayoutEffect(() => { if (box.current) box.current.indeterminate = chosen > 0 && !all; });
  const toggleAll = () => {
    const next = new Set(selection.value);
    for (const id of groupIds) if (all) next.delete(id); else next.add(id);
    selection.value = next;
  };
  const style = { borderLeftColor: group.color ?? "#579BFC" };
  return html`<tr class="row row--group" aria-rowindex=${index}>
    <th colspan=${span} scope="colgroup" class="group-head" style=${style}>
      <div class="group-head__inner">
        <input ref=${box} type="checkbox" class="row__check" aria-label=${t("selectGroup", { group: group.name })}
          checked=${all} disabled=${groupIds.length === 0} onChange=${toggleAll} />
        <button type="button" class="button button--quiet button--small group-head__toggle" aria-expanded=${group.collapsed ? "false" : "true"}
          aria-label=${group.collapsed ? t("expandGroup", { group: group.name }) : t("collapseGroup", { group: group.name })}
          onClick=${() => writes.group.collapse(group, !group.collapsed)}>${group.collapsed ? "▸" : "▾"}</button>
        <span class="group-head__name">
          <span class="group-head__swatch" style=${{ background: group.color ?? "#579BFC" }} aria-hidden="true"></span>
          ${group.name}</span>
        <span class="group-head__count">${t("groupItems", { count })}</span>
        <button type="button" class="button button--quiet button--small" onClick=${() => onActions(group)}
          aria-label=${t("groupActions", { group: group.name })}>⋯</button>
      </div>
    </th>
  </tr>`;
}

export function ItemRow({ item, index, columns, members, items, selection, expanded, onEdit, onActions, onMove,
  onToggleSub, focusRequest, drag }) {
  const row = useRef(null);
  useLayoutEffect(() => {
    const wanted = focusRequest.current;
    if (wanted?.id === item.id) {
      row.current?.querySelector(`[data-focus="${wanted.control}"]`)?.focus();
      focusRequest.current = null;
    }
  });
  const selected = selection.value.has(item.id);
  const toggle = () => {
    const next = new Set(selection.value);
    if (selected) next.delete(item.id); else next.add(item.id);
    selection.value = next;
  };
  const keydown = (event) => {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    event.preventDefault();
    onMove(item, event.key === "ArrowUp" ? -1 : 1, event.key === "ArrowUp" ? "up" : "down");
  };
  return html`<tr ref=${row} class=${`row row--item${selected ? " row--selected" : ""}`} aria-rowindex=${index} draggable="true" onKeyDown=${keydown}
      onDragStart=${(event) => drag.start(event, item)} onDragOver=${(event) => drag.over(event, item)}
      onDrop=${(event) => drag.drop(event, item)}>
    <td class="cell cell--select"><input type="checkbox" class="row__check" checked=${selected} onChange=${toggle}
      aria-label=${t("selectItem", { item: item.name })} /></td>
    <th scope="row" class="cell cell--name"><div class="cell__split">
      <button type="button" class="button button--quiet button--small row__expander" aria-expanded=${expanded ? "true" : "false"}
        aria-label=${expanded ? t("hideSubItems", { item: item.name }) : t("showSubItems", { item: item.name })}
        onClick=${() => onToggleSub(item)}>${expanded ? "▾" : "▸"}</button>
      <a href=${itemPath(item.id)} class="row__name">${item.name}</a></div></th>
    ${columns.map((column) => html`<${Cell} key=${column.id} item=${item} column=${column} members=${members}
      items=${items} onEdit=${onEdit} />`)}
    <td class="cell cell--actions"><div class="row__actions">
      <button type="button" class="button button--quiet button--small" data-focus="up" aria-label=${t("moveUpItem", { item: item.name })}
        title=${t("moveUp")} onClick=${() => onMove(item, -1, "up")}>↑</button>
      <button type="button" class="button button--quiet button--small" data-focus="down" aria-label=${t("moveDownItem", { item: item.name })}
        title=${t("moveDown")} onClick=${() => onMove(item, 1, "down")}>↓</button>
      <button type="button" class="button button--quiet button--small" aria-label=${t("itemActions", { item: item.name })}
        onClick=${() => onActions(item)}>⋯</button>
    </div></td>
  </tr>`;
}

export function SubItemRow({ item, index, columns, members, items }) {
  return html`<tr class="row row--sub" aria-rowindex=${index}>
    <td class="cell cell--select"></td>
    <th scope="row" class="cell cell--name cell--sub"><a href=${itemPath(item.id)} class="row__name">${item.name}</a></th>
    ${columns.map((column) => html`<td key=${column.id} class="cell">
      <${CellValue} column=${column} value=${item.values?.[column.id]} members=${members} items=${items} /></td>`)}
    <td class="cell cell--actions"></td>
  </tr>`;
}

export function NoteRow({ index, span, text }) {
  return html`<tr class="row row--note" aria-rowindex=${index}><td colspan=${span} class="cell cell--note">
    <span class="row__note">${text}</span></td></tr>`;
}

/** A name field and an Add button: Enter adds. `label` is visible; `name`, which contains it, says where. */
export function AddRow({ index, span, label, name, sub = false, onAdd }) {
  const [text, setText] = useState("");
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const id = `add-${index}`;
  const submit = async (event) => {
    event.preventDefault();
    if (!text.trim()) { setError(t("nameRequired")); return; }
    setBusy(true);
    setError(null);
    try {
      await onAdd(text.trim());
      setText("");
    } catch (failure) {
      setError(failure.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<tr class=${`row row--add${sub ? " row--add-sub" : ""}`} aria-rowindex=${index}>
    <td colspan=${span} class="cell cell--add">
      <form class="add-row" onSubmit=${submit} noValidate>
        <label for=${id} class="add-row__label">${label}</label>
        <input id=${id} class="input add-row__input" aria-label=${name} value=${text} onInput=${(e) => setText(e.currentTarget.value)}
          aria-invalid=${error ? "true" : undefined} aria-describedby=${error ? `${id}-error` : undefined} />
        <button type="submit" class="button button--secondary button--small" disabled=${busy}>${t("add")}</button>
        ${error && html`<span id=${`${id}-error`} class="field-error add-row__error" role="alert">${error}</span>`}
      </form>
    </td>
  </tr>`;
}

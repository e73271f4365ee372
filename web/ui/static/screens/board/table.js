// The board's table view, virtualised: the groups, items, sub-items and "add" rows are one flat list of
// rows of one fixed height, and only those in or near the scroll box's viewport are in the DOM, between two
// spacer rows that keep the scroll height true. The <table> keeps its semantics (aria-rowcount on it,
// aria-rowindex on each row), so a screen reader knows where it is in 10,000 rows. Reordering: drag a row
// (pointer) or a row's Move up / Move down buttons and Alt+ArrowUp/Down (keyboard), announced in a live region.
import { html, useState, useRef, useEffect, useMemo, useCallback } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { GroupRow, ItemRow, SubItemRow, AddRow, NoteRow } from "./rows.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

export const ROW_HEIGHT = 60; // px; must match .row in styles.css
const OVERSCAN = 8; // rows drawn beyond each edge of the viewport, so a fast scroll shows no gap

/** The flat list of rows the table shows, from the store's groups and items and the expanded parents. */
function flatten(groups, byGroup, expanded, subItems) {
  const rows = [];
  for (const group of groups) {
    const list = byGroup.get(group.id) ?? [];
    rows.push({ kind: "group", key: `g:${group.id}`, group, count: list.length, ids: list.map((item) => item.id) });
    if (group.collapsed) continue;
    for (const item of list) {
      rows.push({ kind: "item", key: `i:${item.id}`, item });
      if (!expanded.has(item.id)) continue;
      const subs = subItems.get(item.id);
      if (!subs) rows.push({ kind: "note", key: `l:${item.id}`, text: t("loadingSubItems") });
      else {
        if (subs.length === 0) rows.push({ kind: "note", key: `n:${item.id}`, text: t("noSubItems") });
        for (const sub of subs) rows.push({ kind: "sub", key: `s:${sub.id}`, item: sub });
        rows.push({ kind: "addSub", key: `as:${item.id}`, parent: item });
      }
    }
    if (list.length === 0) rows.push({ kind: "note", key: `e:${group.id}`, text: t("emptyGroup") });
    rows.push({ kind: "add", key: `a:${group.id}`, group });
  }
  return rows;
}

/** Which rows are drawn: [first, last) around the viewport. */
function useWindow(box, count) {
  const [view, setView] = useState({ top: 0, height: 900 });
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    let frame = 0;
    const measure = () => {
      frame = 0;
      setView({ top: element.scrollTop, height: element.clientHeight });
    };
    const onScroll = () => { if (!frame) frame = requestAnimationFrame(measure); };
    measure();
    element.addEventListener("scroll", onScroll, { passive: true });
    const observer = new ResizeObserver(onScroll);
    observer.observe(element);
    return () => { element.removeEventListener("scroll", onScroll); observer.disconnect(); cancelAnimationFrame(frame); };
  }, []);
  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((view.top + view.height) / ROW_HEIGHT) + OVERSCAN);
  return [first, last];
}

export function TableView({ store, writes, members, selection, announce, onEdit, onItemActions, onGroupActions }) {
  const columns = store.columns.value;
  const groups = store.groups.value;
  const byGroup = store.itemsByGroup.value;
  const subItems = store.subItems.value;
  const [expanded, setExpanded] = useState(() => new Set());
  const rows = useMemo(() => flatten(groups, byGroup, expanded, subItems), [groups, byGroup, expanded, subItems]);
  const box = useRef(null);
  const [first, last] = useWindow(box, rows.length);
  const focusRequest = useRef(null);
  const dragged = useRef(null);
  const span = columns.length + 3;

  const toggleSub = useCallback((item) => {
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(item.id)) next.delete(item.id);
      else {
        next.add(item.id);
        writes.loadSubItems(item.id).catch((error) => announce(error.message));
      }
      return next;
    });
  }, [writes]);

  /** Move `item` by `step` places in its group (keyboard), keep focus on the control used, and say where. */
  const moveBy = useCallback(async (item, step, control) => {
    const list = store.itemsByGroup.value.get(item.groupId) ?? [];
    const from = list.findIndex((entry) => entry.id === item.id);
    const to = from + step;
    if (from < 0 || to < 0 || to >= list.length) return;
    const ids = list.map((entry) => entry.id);
    ids.splice(from, 1);
    ids.splice(to, 0, item.id);
    focusRequest.current = { id: item.id, control };
    const group = store.groups.value.find((entry) => entry.id === item.groupId);
    announce(t("movedTo", { item: item.name, position: to + 1, count: ids.length, group: group?.name ?? "" }));
    keepVisible(item.id);
    try {
      await writes.reorder(item.groupId, ids);
    } catch (error) {
      announce(error.message);
    }
  }, [writes]);

  /** Scroll so that the item's row stays in view after it moved. */
  function keepVisible(id) {
    requestAnimationFrame(() => {
      const index = flatten(store.groups.value, store.itemsByGroup.value, expanded, store.subItems.value)
        .findIndex((row) => row.key === `i:${id}`);
      const element = box.current;
      if (index < 0 || !element) return;
      const top = index * ROW_HEIGHT;
      if (top < element.scrollTop || top + 2 * ROW_HEIGHT > element.scrollTop + element.clientHeight) {
        element.scrollTop = Math.max(0, top - element.clientHeight / 2);
      }
    });
  }

  const drag = useMemo(() => ({
    start(event, item) {
      if (event.target instanceof Element && event.target.closest("input, textarea, select")) return;
      dragged.current = item;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", item.id);
    },
    over(event, target) {
      if (dragged.current && dragged.current.id !== target.id) event.preventDefault();
    },
    async drop(event, target) {
      event.preventDefault();
      const item = dragged.current;
      dragged.current = null;
      if (!item || item.id === target.id) return;
      try {
        if (item.groupId !== target.groupId) {
          const group = store.groups.value.find((entry) => entry.id === target.groupId);
          await writes.move(item, target.groupId);
          announce(t("movedToGroup", { item: item.name, group: group?.name ?? "" }));
          return;
        }
        const ids = (store.itemsByGroup.value.get(item.groupId) ?? []).map((entry) => entry.id)
          .filter((id) => id !== item.id);
        // Dropped on the lower half of the row: after it. (Measured on the row: offsetY is the inner element's.)
        const { top, height } = event.currentTarget.getBoundingClientRect();
        const place = ids.indexOf(target.id) + (event.clientY > top + height / 2 ? 1 : 0);
        ids.splice(place, 0, item.id);
        const group = store.groups.value.find((entry) => entry.id === item.groupId);
        announce(t("movedTo", { item: item.name, position: place + 1, count: ids.length, group: group?.name ?? "" }));
        await writes.reorder(item.groupId, ids);
      } catch (error) {
        announce(error.message);
      }
    },
  }), [writes]);

  const common = { columns, members, items: store.items, selection };
  const drawRow = (row, position) => {
    const index = position + 2; // the header row is row 1
    switch (row.kind) {
      case "group":
        return html`<${GroupRow} key=${row.key} index=${index} span=${span} group=${row.group} count=${row.count}
          groupIds=${row.ids} selection=${selection} writes=${writes} onActions=${onGroupActions} />`;
      case "item":
        return html`<${ItemRow} key=${row.key} index=${index} item=${row.item} ...${common}
          expanded=${expanded.has(row.item.id)} onEdit=${onEdit} onActions=${onItemActions} onMove=${moveBy}
          onToggleSub=${toggleSub} focusRequest=${focusRequest} drag=${drag} />`;
      case "sub":
        return html`<${SubItemRow} key=${row.key} index=${index} item=${row.item} ...${common} />`;
      case "addSub":
        return html`<${AddRow} key=${row.key} index=${index} span=${span} sub label=${t("addSubItem")}
          name=${t("newSubItemName", { item: row.parent.name })}
          onAdd=${(name) => writes.create(row.parent.groupId, name, { parentId: row.parent.id })} />`;
      case "add":
        return html`<${AddRow} key=${row.key} index=${index} span=${span} label=${t("addItem")}
          name=${t("addItemTo", { group: row.group.name })}
          onAdd=${async (name) => { await writes.create(row.group.id, name); announce(t("itemAdded", { item: name })); }} />`;
      default:
        return html`<${NoteRow} key=${row.key} index=${index} span=${span} text=${row.text} />`;
    }
  };

  return html`<div class="board-table" ref=${box}>
    <table class="grid" aria-rowcount=${rows.length + 1} aria-label=${store.board.value?.name}>
      <colgroup>
        <col class="grid__col-select" />
        <col class="grid__col-name" />
        ${columns.map((column) => html`<col key=${column.id} style=${{ width: `${Math.max(column.width ?? 150, 170)}px` }} />`)}
        <col class="grid__col-actions" />
      </colgroup>
      <thead>
        <tr aria-rowindex="1">
          <th scope="col" class="grid__head grid__head--select"><span class="visually-hidden">${t("selectColumn")}</span></th>
          <th scope="col" class="grid__head grid__head--name">${t("itemColumn")}</th>
          ${columns.map((column) => html`<th key=${column.id} scope="col" class="grid__head">${column.name}</th>`)}
          <th scope="col" class="grid__head"><span class="visually-hidden">${t("actionsColumn")}</span></th>
        </tr>
      </thead>
      <tbody>
        ${first > 0 && html`<tr class="grid__spacer" aria-hidden="true" style=${{ height: `${first * ROW_HEIGHT}px` }}><td colspan=${span}></td></tr>`}
        ${rows.slice(first, last).map((row, offset) => drawRow(row, first + offset))}
        ${last < rows.length && html`<tr class="grid__spacer" aria-hidden="true" style=${{ height: `${(rows.length - last) * ROW_HEIGHT}px` }}><td colspan=${span}></td></tr>`}
      </tbody>
    </table>
  </div>`;
}

// Today's checklists: tick each item, comment on it, complete. Every tick and comment is kept at once (a draft
// per checklist and period in IndexedDB), so closing the tablet mid-way loses nothing; completing queues one
// checklists.complete with all responses. A checklist shows as completed when the server says so or when its
// completion waits in the queue.
import { html, useState } from "../../lib.js";
import { read, forget, KEPT } from "./store.js";
import { call, enqueue, entries, currentPerson } from "./queue.js";
import { drain } from "./sync.js";

/** The kept draft of a checklist: one per person, checklist and period. */
const EMPTY_DRAFT = { checked: {}, comments: {} };

export const draftKey = (checklist) => `draft:${currentPerson()}:${checklist.id}:${checklist.periodStart}`;

/** The person's drafts of `checklists` (their current periods), by checklist id; drafts of periods gone by are
 * dropped. */
export async function readDrafts(checklists) {
  const drafts = {};
  for (const checklist of checklists) {
    drafts[checklist.id] = (await read(draftKey(checklist))) ?? EMPTY_DRAFT;
  }
  await forget(`draft:${currentPerson()}:`, new Set(checklists.map(draftKey)));
  return drafts;
}

const queuedCompletion = (checklist) => entries.value.some((entry) => entry.procedure === "checklists.complete"
  && entry.input.checklistId === checklist.id);

function Item({ t, item, draft, disabled, onChange }) {
  const [commenting, setCommenting] = useState(Boolean(draft.comments[item.id]));
  const id = `check-${item.id}`;
  return html`<li class="tablet-check">
    <div class="tablet-check__row">
      <input type="checkbox" id=${id} class="tablet-check__box" checked=${Boolean(draft.checked[item.id])}
        disabled=${disabled}
        onChange=${(event) => {
          const checked = event.currentTarget.checked;
          onChange((before) => ({ ...before, checked: { ...before.checked, [item.id]: checked } }));
        }} />
      <label for=${id} class="tablet-check__label">${item.text}
        ${item.required && html` <span class="tablet-check__required">(${t("required")})</span>`}</label>
      ${!commenting && !disabled && html`<button type="button" class="button button--quiet tablet-check__comment"
        aria-label=${t("commentOn", { item: item.text })} onClick=${() => setCommenting(true)}>
        ${t("addComment")}</button>`}
    </div>
    ${commenting && html`<label class="tablet-field">
      <span class="tablet-field__label">${t("commentOn", { item: item.text })}</span>
      <input type="text" class="tablet-field__input" value=${draft.comments[item.id] ?? ""} disabled=${disabled}
        maxlength="2000"
        onInput=${(event) => {
          const comment = event.currentTarget.value;
          onChange((before) => ({ ...before, comments: { ...before.comments, [item.id]: comment } }));
        }} />
    </label>`}
  </li>`;
}

function Checklist({ t, checklist, draft, onDraft }) {
  const [missing, setMissing] = useState(/** @type {string[]} */ ([]));
  const queued = queuedCompletion(checklist);
  const completed = checklist.isCompleted || queued;
  const save = (patch) => onDraft(checklist, patch);
  const complete = async () => {
    const draft = onDraft(checklist, (before) => before);
    const unticked = checklist.items.filter((item) => item.required && !draft.checked[item.id]);
    setMissing(unticked.map((item) => item.text));
    if (unticked.length > 0) return;
    const responses = checklist.items.map((item) => ({ itemId: item.id, checked: Boolean(draft.checked[item.id]),
      ...(draft.comments[item.id]?.trim() ? { comment: draft.comments[item.id].trim() } : {}) }));
    const write = { ...call("checklists.complete", { checklistId: checklist.id, responses }),
      about: { what: "checklist", name: checklist.name } };
    await enqueue([write], (stores) => { stores[KEPT].put(draft, draftKey(checklist)); }, [KEPT]);
    drain();
  };
  const headingId = `checklist-${checklist.id}`;
  return html`<article class="tablet-card" aria-labelledby=${headingId}>
    <header class="tablet-card__head">
      <h3 id=${headingId} class="tablet-card__title">${checklist.name}</h3>
      <span class="tablet-card__meta">
        ${t(`frequency_${checklist.frequency}`)} · ${t("due", { hour: checklist.deadlineHour })}</span>
      ${completed && html`<span class="tablet-pill tablet-pill--done">
        ${checklist.isCompleted ? t("completedServer") : t("completedHere")}</span>`}
    </header>
    <ul class="tablet-checks">
      ${checklist.items.map((item) => html`<${Item} key=${item.id} t=${t} item=${item} draft=${draft}
        disabled=${completed} onChange=${save} />`)}
    </ul>
    ${missing.length > 0 && !completed && html`<p class="tablet-error" role="alert">
      ${t("missingRequired", { count: missing.length, items: missing.join(", ") })}</p>`}
    ${!completed && html`<button type="button" class="button button--primary tablet-big" onClick=${complete}>
      ${t("complete")}</button>`}
  </article>`;
}

export function Checklists({ t, checklists, drafts, onDraft }) {
  if (checklists.length === 0) return html`<p class="tablet-empty">${t("noChecklists")}</p>`;
  return html`<div class="tablet-list">${checklists.map((checklist) => html`<${Checklist} key=${checklist.id} t=${t}
    checklist=${checklist} draft=${drafts[checklist.id] ?? EMPTY_DRAFT} onDraft=${onDraft} />`)}</div>`;
}

// 5S audits: start one, score each item with big buttons, attach a photo from the camera, complete it. The
// audit in hand is a record per audit checklist in IndexedDB (`audit:<checklistId>`: the session's id, or a
// reference to the queued audits.startAudit's answer while it waits; the scores as the person set them), written
// in the same transaction as the queued write it goes with, one per person. A photo is queued as an upload
// followed by the score that refers to the upload's address, so it is sent first. Each queued entry names its audit
// checklist (`audit`), so the record is replaced by the server's session only once nothing of it waits.
import { html, useEffect, useMemo } from "../../lib.js";
import { number } from "../../format.js";
import { read, keep, transact, KEPT } from "./store.js";
import { call, upload, ref, enqueue, currentPerson } from "./queue.js";
import { drain } from "./sync.js";

/** The kept record of the audit in hand: one per person and audit checklist (tablets are shared between shifts). */
export const auditKey = (checklistId, person = currentPerson()) => `audit:${person}:${checklistId}`;

function fromSession(session) {
  return { sessionId: session.id, sessionRef: null, completed: false,
    scores: Object.fromEntries(session.scores.map((score) => [score.itemId,
      { score: score.score, comment: score.comment, photoUrl: score.photoUrl }])) };
}

/** The audit in hand per audit checklist: the record kept here while something of it waits in the queue, else
 * the person's session in progress on the server (as last read), else none. */
export async function readAudits(audits, sessions, queue) {
  const records = {};
  for (const checklist of audits) {
    const busy = queue.some((entry) => entry.audit === checklist.id && entry.userId === currentPerson());
    const session = sessions.find((one) => one.checklistId === checklist.id);
    const record = busy ? await read(auditKey(checklist.id)) : (session ? fromSession(session) : null);
    if (!busy) await keep(auditKey(checklist.id), record);
    records[checklist.id] = record;
  }
  return records;
}

/** After a queued write went through: the record learns its session's id or its photo's address, so writes made
 * from now on need no reference to an answer (an answer is forgotten an hour after no queued write needs it). */
export function learn(record, entry, answer) {
  if (!record) return record;
  if (entry.procedure === "audits.startAudit" && record.sessionRef?.$ref === entry.key) {
    return { ...record, sessionId: answer.id, sessionRef: null };
  }
  if (entry.kind === "upload") {
    const scores = Object.fromEntries(Object.entries(record.scores).map(([itemId, score]) => [itemId,
      score.photoUrl?.$ref === entry.key ? { ...score, photoUrl: answer.url } : score]));
    return { ...record, scores };
  }
  return record;
}

const scoreInput = (itemId, score) => ({ itemId, score: score.score,
  ...(score.comment ? { comment: score.comment } : {}), ...(score.photoUrl ? { photoUrl: score.photoUrl } : {}) });

/** Queue `writes` for audit checklist `checklist` with its record changed to `next`, in one transaction. The
 * record in hand changes at once (a second tap builds on the first), the screen only once both are on disk. */
async function queueWith(checklist, writes, next, onRecord) {
  onRecord(checklist.id, next, { draw: false });
  await enqueue(writes.map((write) => ({ ...write, audit: checklist.id })),
    (stores) => { stores[KEPT].put(next, auditKey(checklist.id)); }, [KEPT]);
  onRecord(checklist.id, null, { draw: true });
  drain();
}

function Photo({ t, score, question }) {
  const local = useMemo(() => (score.photoBlob ? URL.createObjectURL(score.photoBlob) : null), [score.photoBlob]);
  useEffect(() => () => { if (local) URL.revokeObjectURL(local); }, [local]);
  if (!score.photoUrl) return null;
  const sent = typeof score.photoUrl === "string";
  const shown = local ?? (sent ? score.photoUrl : null);
  return html`<p class="tablet-photo">
    ${shown && html`<img class="tablet-photo__thumb" src=${shown} alt=${t("photoFor", { question })} />`}
    <span>${sent ? t("photoAttached") : t("photoWaiting")}</span>
  </p>`;
}

function Item({ t, item, score, disabled, onScore, onPhoto }) {
  const max = item.maxScore ?? 5;
  const inputId = `photo-${item.id}`;
  return html`<li class="tablet-audit-item">
    <p class="tablet-audit-item__question">${item.question}
      <span class="tablet-card__meta"> · ${t(`category_${item.category}`)}</span></p>
    <div class="tablet-audit-item__row">
      <div class="tablet-scores" role="group" aria-label=${t("scoreLabel", { question: item.question })}>
        ${Array.from({ length: max }, (_, index) => index + 1).map((value) => html`<button type="button"
          class="tablet-score" aria-pressed=${score?.score === value ? "true" : "false"} disabled=${disabled}
          aria-label=${t("scoreButtonName", { score: number(value), max: number(max), question: item.question })}
          onClick=${() => onScore(item, value)}>${number(value)}</button>`)}
      </div>
      ${!disabled && html`<div class="tablet-photo__add">
        <input type="file" id=${inputId} class="tablet-file" accept="image/*" capture="environment"
          aria-label=${t("photoFor", { question: item.question })} disabled=${!score}
          onChange=${(event) => {
            const file = event.currentTarget.files?.[0];
            event.currentTarget.value = "";
            if (file) onPhoto(item, file);
          }} />
        <label for=${inputId} class=${`button button--secondary tablet-big${score ? "" : " tablet-file--off"}`}
          aria-hidden="true">${t("addPhoto")}</label>
        ${!score && html`<span class="tablet-card__meta">${t("scoreFirst")}</span>`}
      </div>`}
    </div>
    ${score && html`<${Photo} t=${t} score=${score} question=${item.question} />`}
  </li>`;
}

function Audit({ t, boardId, checklist, record, onRecord }) {
  // The record as it is now (not as at the last render: a tap may come before the redraw).
  const now = () => onRecord(checklist.id, null, { draw: false });
  const sessionOf = (current) => current.sessionId ?? current.sessionRef;
  const start = () => {
    const write = { ...call("audits.startAudit", { boardId, checklistId: checklist.id }),
      about: { what: "auditStart", name: checklist.name } };
    return queueWith(checklist, [write], { sessionId: null, sessionRef: ref(write.key, "id"), completed: false,
      scores: {} }, onRecord);
  };
  const score = (item, value) => {
    const current = now();
    const next = { ...current, scores: { ...current.scores, [item.id]: { ...current.scores[item.id], score: value } } };
    const write = { ...call("audits.submitScore", { sessionId: sessionOf(current),
      scores: [scoreInput(item.id, next.scores[item.id])] }),
      about: { what: "score", name: item.question, value } };
    return queueWith(checklist, [write], next, onRecord);
  };
  const photo = (item, file) => {
    const current = now();
    const sent = upload(file, file.name || "photo.jpg");
    const scored = { ...current.scores[item.id], photoUrl: ref(sent.key, "url"), photoName: file.name,
      photoBlob: file };
    const next = { ...current, scores: { ...current.scores, [item.id]: scored } };
    const write = { ...call("audits.submitScore", { sessionId: sessionOf(current),
      scores: [scoreInput(item.id, scored)] }),
      about: { what: "score", name: item.question, value: scored.score } };
    return queueWith(checklist, [{ ...sent, about: { what: "photo", name: item.question } }, write], next, onRecord);
  };
  const complete = () => {
    const current = now();
    const write = { ...call("audits.completeAudit", { id: sessionOf(current) }),
      about: { what: "auditComplete", name: checklist.name } };
    return queueWith(checklist, [write], { ...current, completed: true }, onRecord);
  };
  const unscored = checklist.items.filter((item) => !record?.scores[item.id]).length;
  const headingId = `audit-${checklist.id}`;
  return html`<article class="tablet-card" aria-labelledby=${headingId}>
    <header class="tablet-card__head">
      <h3 id=${headingId} class="tablet-card__title">${checklist.name}</h3>
      <span class="tablet-card__meta">${checklist.type}</span>
      ${record && html`<span class="tablet-pill tablet-pill--done">
        ${record.completed ? t("auditCompleted") : t("auditInProgress")}</span>`}
    </header>
    ${!record && html`<button type="button" class="button button--primary tablet-big" onClick=${start}>
      ${t("startAudit")}</button>`}
    ${record && html`<ul class="tablet-audit-items">
      ${checklist.items.map((item) => html`<${Item} key=${item.id} t=${t} item=${item} score=${record.scores[item.id]}
        disabled=${record.completed} onScore=${score} onPhoto=${photo} />`)}
    </ul>`}
    ${record && !record.completed && html`<div class="button-row">
      <button type="button" class="button button--primary tablet-big" disabled=${unscored > 0} onClick=${complete}>
        ${t("completeAudit")}</button>
      ${unscored > 0 && html`<span class="tablet-card__meta">${t("unscored", { count: unscored })}</span>`}
    </div>`}
  </article>`;
}

export function Audits({ t, boardId, audits, records, onRecord }) {
  if (audits.length === 0) return html`<p class="tablet-empty">${t("noAudits")}</p>`;
  return html`<div class="tablet-list">${audits.map((checklist) => html`<${Audit} key=${checklist.id} t=${t}
    boardId=${boardId} checklist=${checklist} record=${records[checklist.id] ?? null} onRecord=${onRecord} />`)}</div>`;
}

/** Apply `learn` to the kept record of the entry's audit; answers the new record. */
export async function learnKept(entry, answer) {
  if (!entry.audit) return undefined;
  let next;
  await transact([KEPT], "readwrite", (stores) => {
    const request = stores[KEPT].get(auditKey(entry.audit, entry.userId));
    request.onsuccess = () => {
      next = learn(request.result, entry, answer);
      if (next) stores[KEPT].put(next, auditKey(entry.audit, entry.userId));
    };
  });
  return next;
}

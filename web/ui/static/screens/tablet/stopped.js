// Writes the server refused (a conflict such as a checklist already completed for this period, an audit
// completed meanwhile, or another refusal): each is shown with what the person wanted, what the server has
// now, and their choice. "Discard mine" drops it (with the later writes that build on it); "Send again as is"
// is offered where sending it again can succeed (not for a conflict: the server's state stands).
import { html, useEffect, useState } from "../../lib.js";
import { query } from "../../api.js";
import { dateTime, number } from "../../format.js";
import { entries, discard, sendAgain } from "./queue.js";
import { drain } from "./sync.js";
import { describe } from "./describe.js";

async function serverState(t, entry, me) {
  if (entry.procedure === "checklists.complete") {
    const history = await query("checklists.getCompletionHistory", { checklistId: entry.input.checklistId, limit: 1 });
    const last = history.items[0];
    if (last) return t("completedBy", { when: dateTime(last.completedAt),
      who: last.completedById === me?.id ? t("completedByYou") : t("completedByOther") });
  }
  const sessionId = entry.procedure === "audits.completeAudit" ? entry.input.id : entry.input?.sessionId;
  if (typeof sessionId === "string") {
    const audit = await query("audits.getAuditById", { id: sessionId });
    if (audit.status === "completed") return t("auditCompletedAt", { when: dateTime(audit.completedAt),
      score: number(audit.totalScore), max: number(audit.maxScore) });
  }
  return entry.problem.message;
}

function Stopped({ t, entry, me, onResolved }) {
  const [state, setState] = useState(/** @type {string | null} */ (null));
  useEffect(() => {
    let current = true;
    serverState(t, entry, me).then((text) => current && setState(text),
      () => current && setState(entry.problem.message || t("serverUnknown")));
    return () => { current = false; };
  }, [entry.seq, entry.problem?.code]);
  const canSendAgain = entry.problem.code !== "CONFLICT";
  return html`<li class="tablet-stopped__entry">
    <dl class="conflict__values">
      <dt>${t("yours")}</dt><dd>${describe(t, entry)}</dd>
      <dt>${t("server")}</dt><dd>${state ?? entry.problem.message}</dd>
    </dl>
    <div class="button-row">
      <button type="button" class="button button--secondary" onClick=${async () => {
        onResolved(await discard(entry));
      }}>${t("discard")}</button>
      ${canSendAgain && html`<button type="button" class="button button--primary" onClick=${async () => {
        await sendAgain(entry);
        drain();
      }}>${t("sendAgain")}</button>`}
    </div>
  </li>`;
}

export function StoppedWrites({ t, me, onResolved }) {
  const stopped = entries.value.filter((entry) => entry.state === "stopped");
  if (stopped.length === 0) return null;
  return html`<section class="notice notice--warning tablet-stopped" role="alert" aria-labelledby="tablet-stopped">
    <h2 id="tablet-stopped" class="conflict__title">${t("stoppedTitle", { count: stopped.length })}</h2>
    <p>${t("stoppedBody")}</p>
    <ul class="tablet-stopped__list">
      ${stopped.map((entry) => html`<${Stopped} key=${entry.seq} t=${t} entry=${entry} me=${me}
        onResolved=${onResolved} />`)}
    </ul>
  </section>`;
}

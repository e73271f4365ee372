// The board screen's "Tier meeting" control: "Start tier meeting" (a dialog: the tier and who attends) when
// none runs at the board, "Tier N meeting in progress — join" when one does, and "Past meetings" (a dialog
// listing the board's completed meetings, each a link to its replay). `meetingWatch()` keeps the board's
// meetings in progress: read with the board (meetings.list) and kept current by the board room's
// meeting.started / meeting.completed events, which the board screen passes on.
import { html, signal, useState, useEffect } from "../../lib.js";
import { query, mutate } from "../../api.js";
import { navigate } from "../../router.js";
import { dateTime } from "../../format.js";
import { catalogue } from "../../i18n.js";
import { Dialog } from "../../components/dialog.js";
import { Field, ErrorSummary, Submit, useForm } from "../../components/forms.js";
import strings from "../board.strings.js";

const t = catalogue(strings);
const TIERS = [1, 2, 3, 4, 5];
const PAST = 20;
export const meetingPath = (id) => `/meetings/${encodeURIComponent(id)}`;

/** The board's meetings in progress (`running`, a signal), loaded with the board and kept by its events. */
export function meetingWatch(boardId) {
  const running = signal([]);
  const put = (meeting) => {
    const others = running.value.filter((entry) => entry.id !== meeting.id);
    running.value = meeting.status === "in_progress" ? [...others, meeting].sort((a, b) => a.tier - b.tier) : others;
  };
  return {
    running,
    async load() {
      const { meetings } = await query("meetings.list", { boardId, limit: PAST });
      running.value = meetings.filter((meeting) => meeting.status === "in_progress").sort((a, b) => a.tier - b.tier);
    },
    apply(name, payload) {
      const meeting = payload?.data?.meeting;
      if (meeting && name.startsWith("meeting.")) put(meeting);
    },
  };
}

function StartDialog({ open, boardId, members, onClose }) {
  const form = useForm({ tier: "1", attendeeIds: [] });
  useEffect(() => { if (open) form.reset(); }, [open]);
  const toggle = (id) => form.set("attendeeIds")(form.values.attendeeIds.includes(id)
    ? form.values.attendeeIds.filter((other) => other !== id) : [...form.values.attendeeIds, id]);
  const submit = async (event) => {
    event.preventDefault();
    /** @type {any} */
    let started = null;
    await form.submit(async (values) => {
      started = await mutate("meetings.start", { boardId, tier: Number(values.tier), attendeeIds: values.attendeeIds });
    });
    if (started) navigate(meetingPath(started.id));
  };
  return html`<${Dialog} open=${open} title=${t("meetingStartTitle")} onClose=${onClose}>
    <form onSubmit=${submit} novalidate>
      <${ErrorSummary} title=${t("meetingErrorTitle")} errors=${form.errors} />
      <${Field} name="tier" as="select" label=${t("meetingTier")} hint=${t("meetingTierHint")} value=${form.values.tier}
        onInput=${form.set("tier")} error=${form.errors.tier}>
        ${TIERS.map((tier) => html`<option key=${tier} value=${String(tier)}>${t("meetingTierOption", { tier })}</option>`)}
      <//>
      <fieldset class="meeting-attendees" id="field-attendeeIds" tabindex="-1">
        <legend>${t("meetingAttendees")}</legend>
        ${members.map((member) => html`<label key=${member.id} class="checkbox">
          <input type="checkbox" checked=${form.values.attendeeIds.includes(member.id)} onChange=${() => toggle(member.id)} />
          <span>${member.name}</span></label>`)}
      </fieldset>
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t("meetingStarting")}>${t("meetingStart")}<//>
        <button type="button" class="button button--secondary" onClick=${onClose}>${t("cancel")}</button>
      </div>
    </form>
  <//>`;
}

function PastDialog({ open, boardId, onClose }) {
  const [past, setPast] = useState(null);
  useEffect(() => {
    if (!open) return;
    setPast(null);
    query("meetings.list", { boardId, limit: PAST }).then(
      ({ meetings }) => setPast(meetings.filter((meeting) => meeting.status !== "in_progress")),
      (error) => setPast(error));
  }, [open]);
  return html`<${Dialog} open=${open} title=${t("meetingPastTitle")} onClose=${onClose}>
    ${past === null ? html`<p class="loading" role="status">${t("meetingPastLoading")}</p>`
      : past instanceof Error ? html`<p class="notice notice--error" role="alert">${past.message}</p>`
      : past.length === 0 ? html`<p class="empty">${t("meetingNonePast")}</p>`
      : html`<ul class="meeting-past">${past.map((meeting) => html`<li key=${meeting.id}>
          <a href=${meetingPath(meeting.id)}>${t("meetingPastEntry", { tier: meeting.tier, when: dateTime(meeting.startedAt) })}</a>
        </li>`)}</ul>`}
    <div class="button-row"><button type="button" class="button button--secondary" onClick=${onClose}>${t("close")}</button></div>
  <//>`;
}

export function MeetingControl({ watch, boardId, members }) {
  const [dialog, setDialog] = useState(null);
  const running = watch.running.value;
  const close = () => setDialog(null);
  return html`<div class="meeting-control" role="group" aria-label=${t("meetingControl")}>
    ${running.length ? running.map((meeting) => html`<a key=${meeting.id} class="button button--primary meeting-control__join"
        href=${meetingPath(meeting.id)}>${t("meetingJoin", { tier: meeting.tier })}</a>`)
      : html`<button type="button" class="button button--primary"
          onClick=${() => setDialog("start")}>${t("meetingStartButton")}</button>`}
    <button type="button" class="button button--secondary" onClick=${() => setDialog("past")}>${t("meetingPast")}</button>
    <${StartDialog} open=${dialog === "start"} boardId=${boardId} members=${members} onClose=${close} />
    <${PastDialog} open=${dialog === "past"} boardId=${boardId} onClose=${close} />
  </div>`;
}

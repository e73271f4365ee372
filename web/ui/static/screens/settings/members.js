// Settings section "Members" (everyone sees it; owners and admins change it): the members with role, status and
// when they joined, the pending invitations, inviting by e-mail with a role, changing a member's role and
// removing a member after a confirmation. The rules the server applies are said beside each member instead
// of offering a button it would refuse: the owner stays owner, and only the owner changes or removes admins
// or makes someone an admin.
import { html, useState, useRef } from "../../lib.js";
import { api } from "../../api/client.js";
import { queryPages } from "../../api.js";
import { catalogue } from "../../i18n.js";
import { date } from "../../format.js";
import { me, role, isAdmin } from "../../session.js";
import { useForm, Field, ErrorSummary, Submit } from "../../components/forms.js";
import { Dialog, ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { useList } from "./parts.js";
import { Loaded } from "./load.js";
import strings from "./members.strings.js";

const t = catalogue(strings);

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** The roles the signed-in person may give: admin only by the owner. */
const givable = () => (role.value === "owner" ? ["admin", "member", "guest"] : ["member", "guest"]);
const label = (member) => member.name ?? member.email;

function RoleOptions() {
  return givable().map((value) => html`<option key=${value} value=${value}>${t(`role.${value}`)}</option>`);
}

function InviteForm({ onInvited }) {
  const form = useForm({ email: "", role: "member" });
  const check = (values) => ({ email: !values.email.trim() ? t("emailMissing")
    : EMAIL.test(values.email.trim()) ? null : t("emailBad") });
  const submit = (event) => {
    event.preventDefault();
    form.submit(async (values) => {
      onInvited(await api.organizations.members.invite({ email: values.email.trim(), role: values.role }));
      form.reset();
    }, check);
  };
  return html`<section class="card settings__create" aria-labelledby="member-invite">
    <h3 id="member-invite">${t("inviteTitle")}</h3>
    <${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
    <form onSubmit=${submit} novalidate>
      <${Field} name="email" type="email" label=${t("email")} hint=${t("emailHint")} value=${form.values.email}
        onInput=${form.set("email")} error=${form.errors.email} autocomplete="off" spellcheck="false" />
      <${Field} name="role" as="select" label=${t("role")} hint=${t("roleHint")} value=${form.values.role}
        onInput=${form.set("role")} error=${form.errors.role}><${RoleOptions} /><//>
      <${Submit} busy=${form.busy} busyLabel=${t("inviting")}>${t("invite")}<//>
    </form>
  </section>`;
}

function RoleForm({ member, onDone, onCancel }) {
  const form = useForm({ newRole: givable().includes(member.role) ? member.role : "member" });
  const submit = (event) => {
    event.preventDefault();
    form.submit(async (values) => {
      onDone(await api.organizations.members.updateRole({ userId: member.id, role: values.newRole }));
    });
  };
  return html`<${ErrorSummary} title=${t("errorTitle")} errors=${form.errors} />
    <form onSubmit=${submit} novalidate>
      <${Field} name="newRole" as="select" label=${t("newRole")} hint=${t("roleHint")} value=${form.values.newRole}
        onInput=${form.set("newRole")} error=${form.errors.newRole}><${RoleOptions} /><//>
      <div class="button-row">
        <${Submit} busy=${form.busy} busyLabel=${t("saving")}>${t("save")}<//>
        <button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>
      </div>
    </form>`;
}

/** What the signed-in admin may do to `member`, or why not. */
function MemberActions({ member, onAsk }) {
  if (member.role === "owner") return html`<p class="member__rule">${t("ownerFixed")}</p>`;
  if (member.role === "admin" && role.value !== "owner") return html`<p class="member__rule">${t("adminFixed")}</p>`;
  return html`<div class="row-actions">
    <button type="button" class="button button--secondary button--small" aria-label=${t("changeRoleOf", { name: label(member) })}
      onClick=${() => onAsk("role", member)}>${t("changeRole")}</button>
    <button type="button" class="button button--quiet button--small" aria-label=${t("removeOf", { name: label(member) })}
      onClick=${() => onAsk("remove", member)}>${t("remove")}</button>
  </div>`;
}

function MembersTable({ members, onAsk }) {
  const manage = isAdmin.value;
  return html`<div class="table-scroll"><table class="table">
    <caption class="visually-hidden">${t("membersTitle")}</caption>
    <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("email")}</th><th scope="col">${t("role")}</th>
      <th scope="col">${t("status")}</th><th scope="col">${t("joined")}</th>
      ${manage && html`<th scope="col">${t("actions")}</th>`}</tr></thead>
    <tbody>${members.map((member) => html`<tr key=${member.id}>
      <th scope="row">${member.id === me.value?.id ? t("you", { name: label(member) }) : label(member)}</th>
      <td>${member.email}</td>
      <td>${t(`role.${member.role}`)}</td>
      <td>${t(`status.${member.status}`)}</td>
      <td>${date(member.joinedAt)}</td>
      ${manage && html`<td><${MemberActions} member=${member} onAsk=${onAsk} /></td>`}
    </tr>`)}</tbody>
  </table></div>`;
}

function InvitationsTable({ invitations }) {
  if (!invitations.length) return html`<p class="empty">${t("noInvitations")}</p>`;
  return html`<div class="table-scroll"><table class="table">
    <caption class="visually-hidden">${t("invitationsTitle")}</caption>
    <thead><tr><th scope="col">${t("email")}</th><th scope="col">${t("role")}</th><th scope="col">${t("status")}</th>
      <th scope="col">${t("invitedOn")}</th></tr></thead>
    <tbody>${invitations.map((invitation) => html`<tr key=${invitation.id}>
      <th scope="row">${invitation.email}</th>
      <td>${t(`role.${invitation.role}`)}</td>
      <td><span class="chip chip--pending">${t("status.pending")}</span></td>
      <td>${date(invitation.joinedAt)}</td>
    </tr>`)}</tbody>
  </table></div>`;
}

export default function Section() {
  const list = useList(() => queryPages("organizations.members.list", {}, "members"));
  const [asking, setAsking] = useState(null); // {action: "role" | "remove", member}
  const [busy, setBusy] = useState(false);
  const listHeading = useRef(null); // where focus goes when the removed member's row took its button away
  const invited = (reply) => {
    // A new invitation to the same address replaces the old one.
    const old = list.data?.find((entry) => entry.status === "pending" && entry.email === reply.email);
    if (old) list.drop(old.id);
    list.upsert({ id: reply.invitationId, name: null, email: reply.email, role: reply.role, status: "pending",
      joinedAt: new Date().toISOString() });
    notify(t("invited", { email: reply.email }));
  };
  const remove = async () => {
    const { member } = asking;
    setBusy(true);
    try {
      await api.organizations.members.remove({ userId: member.id });
      list.drop(member.id);
      notify(t("removed", { name: label(member) }));
    } catch (error) {
      notify(error.message, "error");
    } finally {
      setBusy(false);
      setAsking(null);
    }
  };
  const onAsk = (action, member) => setAsking({ action, member });
  return html`<h2>${t("title")}</h2>
    <p class="settings__intro">${t("intro")}</p>
    ${isAdmin.value ? html`<${InviteForm} onInvited=${invited} />` : html`<p class="notice">${t("readOnly")}</p>`}
    <${Loaded} state=${list}>${(everyone) => html`
      <h3 tabindex="-1" ref=${listHeading}>${t("membersTitle")}</h3>
      <${MembersTable} members=${everyone.filter((entry) => entry.status !== "pending")} onAsk=${onAsk} />
      <h3>${t("invitationsTitle")}</h3>
      <p class="hint">${t("invitationsHint")}</p>
      <${InvitationsTable} invitations=${everyone.filter((entry) => entry.status === "pending")} />`}<//>
    <${Dialog} open=${asking?.action === "role"} title=${asking ? t("changeRoleTitle", { name: label(asking.member) }) : ""}
        onClose=${() => setAsking(null)}>
      ${asking?.action === "role" && html`<${RoleForm} key=${asking.member.id} member=${asking.member}
        onCancel=${() => setAsking(null)} onDone=${(reply) => {
          list.upsert({ id: reply.userId, role: reply.role });
          notify(t("roleChanged", { name: label(asking.member), role: t(`role.${reply.role}`) }));
          setAsking(null);
        }} />`}
    <//>
    <${ConfirmDialog} open=${asking?.action === "remove"} title=${t("removeTitle")}
      message=${asking ? t("removeMessage", { name: label(asking.member) }) : ""} confirmLabel=${t("remove")}
      cancelLabel=${t("cancel")} busy=${busy} onConfirm=${remove} onClose=${() => setAsking(null)}
      focusAfter=${listHeading} />`;
}

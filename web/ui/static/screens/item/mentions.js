// Mentions between what a person reads and what the server stores. The server keeps `@usr_<id>` in a comment's
// body and wraps each mention of a member in `<span class="mention" data-user-id>` in its (already escaped and
// sanitised) bodyHtml; people must only ever see names. The composer shows `@Ada Lovelace` and sends
// `@usr_...` for the names picked from the list.

const MENTION_IN_BODY = /(?<![\w@])@(usr_[a-z0-9]{1,60})/g;

const nameOf = (members, id, unknown) => members.find((member) => member.id === id)?.name ?? unknown;

/** The server's bodyHtml with every mention shown as "@Name" (the span keeps its class, for highlighting). */
export function bodyWithNames(bodyHtml, members, unknown) {
  const template = document.createElement("template");
  template.innerHTML = bodyHtml ?? "";
  template.content.querySelectorAll("span.mention[data-user-id]").forEach((span) => {
    span.textContent = `@${nameOf(members, span.getAttribute("data-user-id"), unknown)}`;
  });
  return template.innerHTML;
}

/** A stored body as the composer edits it: names instead of ids, and which names stand for whom. */
export function bodyForEditing(body, members, unknown) {
  const picked = new Map();
  const text = body.replace(MENTION_IN_BODY, (_, id) => {
    const name = nameOf(members, id, unknown);
    picked.set(name, id);
    return `@${name}`;
  });
  return { text, picked };
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text as the server takes it: each picked "@Name" becomes "@usr_..." (longest names first). */
export function bodyForServer(text, picked) {
  let body = text;
  const names = [...picked.keys()].sort((a, b) => b.length - a.length);
  for (const name of names) {
    body = body.replace(new RegExp(`(?<![\\w@])@${escapeRegExp(name)}(?![\\w])`, "g"), `@${picked.get(name)}`);
  }
  return body;
}

/** The "@partial name" being typed just before the caret, or null: {start, query}. */
export function mentionAt(text, caret) {
  const before = text.slice(0, caret);
  const match = /(?:^|[\s(])@([^\s@]{0,40}(?: [^\s@]{1,40})?)$/.exec(before);
  if (!match) return null;
  return { start: caret - match[1].length - 1, query: match[1] };
}

/** Members whose name or e-mail starts (any word) with `query`, at most `limit`. */
export function matchingMembers(members, query, limit = 8) {
  const wanted = query.trim().toLowerCase();
  return members
    .filter((member) => member.status !== "deactivated" && member.status !== "removed")
    .filter((member) => !wanted || `${member.name ?? ""} ${member.email ?? ""}`.toLowerCase().split(/\s+/)
      .some((word) => word.startsWith(wanted)) || (member.name ?? "").toLowerCase().startsWith(wanted))
    .slice(0, limit);
}

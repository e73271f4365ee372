// The item's comment thread: pinned comments first (marked "Pinned" in words), then the rest oldest first, as
// people read a conversation; each with its author, time, body (mentions shown as highlighted names), files,
// reactions (toggle buttons saying the emoji, how many reacted and, by aria-pressed, whether you did), and its
// actions: reply (threads are one level deep), pin, edit and delete of one's own. The composer is at the end.
import { html, useState, useRef } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { dateTime, ago } from "../../format.js";
import { me, isAdmin } from "../../session.js";
import { ConfirmDialog } from "../../components/dialog.js";
import { notify } from "../../components/notices.js";
import { Composer } from "./composer.js";
import { bodyWithNames, bodyForEditing } from "./mentions.js";
import strings from "../item.strings.js";

const t = catalogue(strings);

/** The server's reaction codes and what people see. */
export const EMOJI = { thumbsup: "👍", thumbsdown: "👎", heart: "❤️", check: "✅", eyes: "👀", rocket: "🚀",
  party: "🎉", thinking: "🤔" };

function Reactions({ comment, writes }) {
  const [picking, setPicking] = useState(false);
  const myId = me.value?.id;
  const counts = new Map((comment.reactions ?? []).map((reaction) => [reaction.emoji, reaction.users ?? []]));
  const toggle = (code) => writes.react(comment.id, code).catch((error) => notify(t("actionFailed", { message: error.message }), "error"));
  const button = (code) => {
    const users = counts.get(code) ?? [];
    return html`<button key=${code} type="button" class="reaction" aria-pressed=${users.includes(myId) ? "true" : "false"}
        aria-label=${t("react", { emoji: EMOJI[code], count: users.length })} title=${t(`emoji.${code}`)} onClick=${() => toggle(code)}>
      <span aria-hidden="true">${EMOJI[code]}</span>${users.length > 0 && html`<span aria-hidden="true" class="reaction__count">${users.length}</span>`}
    </button>`;
  };
  const shown = Object.keys(EMOJI).filter((code) => counts.has(code));
  const others = Object.keys(EMOJI).filter((code) => !counts.has(code));
  return html`<div class="reactions" role="group" aria-label=${t("reactionsOf", { author: comment.author?.name ?? t("someone") })}>
    ${shown.map(button)}
    ${others.length > 0 && html`<button type="button" class="reaction reaction--add" aria-expanded=${picking ? "true" : "false"}
        onClick=${() => setPicking(!picking)}>${picking ? t("hideReactions") : t("addReaction")}</button>`}
    ${picking && others.map(button)}
  </div>`;
}

function Files({ attachments }) {
  if (!attachments?.length) return null;
  return html`<ul class="comment__files" aria-label=${t("attachments")}>
    ${attachments.map((file) => html`<li key=${file.id}>
      <a href=${`/api/v1/files/${encodeURIComponent(file.id)}`}>${file.name ?? t("unnamedFile")}</a>
    </li>`)}
  </ul>`;
}

function Comment({ comment, store, writes, replies = null, onDelete }) {
  const [editing, setEditing] = useState(false);
  const [replying, setReplying] = useState(false);
  const members = store.members.value;
  const mine = comment.author?.id && comment.author.id === me.value?.id;
  const author = comment.author?.name ?? t("formerMember");
  const topLevel = !comment.parentId;
  const failed = (error) => notify(t("actionFailed", { message: error.message }), "error");
  const edited = comment.updatedAt && comment.updatedAt !== comment.createdAt;
  const headingId = `comment-${comment.id}-by`;

  return html`<article class=${`comment${comment.isPinned ? " comment--pinned" : ""}`} aria-labelledby=${headingId}>
    <header class="comment__head">
      <h3 class="comment__author" id=${headingId}>${author}</h3>
      <time datetime=${comment.createdAt} title=${dateTime(comment.createdAt)}>${ago(comment.createdAt)}</time>
      ${edited && html`<span class="comment__edited">${t("edited")}</span>`}
      ${comment.isPinned && html`<span class="chip comment__pin">${t("pinned")}</span>`}
    </header>
    ${editing
      ? html`<${Composer} name=${`edit-${comment.id}`} label=${t("editLabel")} members=${members} autofocus
          initial=${bodyForEditing(comment.body, members, t("someone"))} submitLabel=${t("saveComment")}
          onCancel=${() => setEditing(false)}
          onSubmit=${async (body) => { await writes.editComment(comment.id, body); setEditing(false); }} />`
      : html`<div class="comment__body" dangerouslySetInnerHTML=${{ __html: bodyWithNames(comment.bodyHtml, members, t("someone")) }}></div>`}
    <${Files} attachments=${comment.attachments} />
    <${Reactions} comment=${comment} writes=${writes} />
    <div class="comment__actions">
      ${topLevel && html`<button type="button" class="button button--quiet button--small" aria-expanded=${replying ? "true" : "false"}
        onClick=${() => setReplying(!replying)}>${t("reply")}<span class="visually-hidden"> ${t("toAuthor", { author })}</span></button>`}
      ${topLevel && html`<button type="button" class="button button--quiet button--small"
        onClick=${() => writes.pin(comment.id, !comment.isPinned).catch(failed)}>
        ${comment.isPinned ? t("unpin") : t("pin")}<span class="visually-hidden"> ${t("commentBy", { author })}</span></button>`}
      ${mine && !editing && html`<button type="button" class="button button--quiet button--small" onClick=${() => setEditing(true)}>
        ${t("edit")}<span class="visually-hidden"> ${t("commentBy", { author })}</span></button>`}
      ${(mine || isAdmin.value) && html`<button type="button" class="button button--quiet button--small" onClick=${() => onDelete(comment)}>
        ${t("delete")}<span class="visually-hidden"> ${t("commentBy", { author })}</span></button>`}
    </div>
    ${replies && replies.length > 0 && html`<ol class="comment__replies" aria-label=${t("repliesTo", { author })}>
      ${replies.map((reply) => html`<li key=${reply.id}><${Comment} comment=${reply} store=${store} writes=${writes}
        onDelete=${onDelete} /></li>`)}
    </ol>`}
    ${replying && html`<div class="comment__reply-box">
      <${Composer} name=${`reply-${comment.id}`} label=${t("replyLabel", { author })} members=${members} autofocus
        submitLabel=${t("sendReply")} onCancel=${() => setReplying(false)}
        onSubmit=${async (body) => { await writes.comment(body, [], comment.id); setReplying(false); }} />
    </div>`}
  </article>`;
}

export function Comments({ store, writes, more, onMore }) {
  const { pinned, rest } = store.thread.value;
  const replies = store.replies.value;
  const total = pinned.length + rest.length;
  // One confirmation for the thread, outside the comments: it closes as the deleted one leaves, and focus
  // goes to the thread's heading instead of being lost with the comment's Delete button.
  const [deleting, setDeleting] = useState(null);
  const heading = useRef(null);
  const remove = async () => {
    try {
      await writes.deleteComment(deleting.id);
    } catch (error) {
      notify(t("actionFailed", { message: error.message }), "error");
    }
    setDeleting(null);
  };
  const list = (comments) => comments.map((comment) => html`<li key=${comment.id}>
    <${Comment} comment=${comment} store=${store} writes=${writes} replies=${replies.get(comment.id) ?? []}
      onDelete=${setDeleting} /></li>`);
  return html`<section class="item-section item-comments" aria-labelledby="item-comments-title">
    <h2 id="item-comments-title" tabindex="-1" ref=${heading}>${t("commentsTitle", { count: total })}</h2>
    ${pinned.length > 0 && html`<ol class="comments comments--pinned" aria-label=${t("pinnedComments")}>${list(pinned)}</ol>`}
    ${more && html`<button type="button" class="button button--secondary" onClick=${onMore}>${t("earlierComments")}</button>`}
    ${rest.length > 0 ? html`<ol class="comments" aria-label=${t("thread")}>${list(rest)}</ol>`
      : total === 0 && html`<p class="empty">${t("noComments")}</p>`}
    <${Composer} name="new-comment" label=${t("newComment")} members=${store.members.value} withAttachments
      submitLabel=${t("sendComment")} onSubmit=${(body, files) => writes.comment(body, files, null)} />
    <${ConfirmDialog} open=${deleting !== null} title=${t("deleteCommentTitle")} message=${t("deleteCommentMessage")}
      confirmLabel=${t("deleteComment")} cancelLabel=${t("cancel")} onClose=${() => setDeleting(null)}
      onConfirm=${remove} focusAfter=${heading} />
  </section>`;
}

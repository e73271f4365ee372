// The comment composer, for a new comment, a reply or an edit: a labelled text box that is also an ARIA
// combobox for @-mentions (type "@" and a name; arrow keys move through the members listbox, Enter or Tab
// picks, Escape closes), optional attachments uploaded at once and sent by id, and Ctrl+Enter (or the button)
// to send. Errors the GOV.UK way: a summary above, the message next to the box.
import { html, useState, useRef, useEffect, useLayoutEffect } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { upload } from "../../api.js";
import { ErrorSummary, errorsFrom } from "../../components/forms.js";
import { bodyForServer, mentionAt, matchingMembers } from "./mentions.js";
import strings from "../item.strings.js";

const t = catalogue(strings);

function Attachments({ files, onRemove }) {
  if (!files.length) return null;
  return html`<ul class="composer__files" aria-label=${t("attachedFiles")}>
    ${files.map((file) => html`<li key=${file.id}>
      <a href=${`/api/v1/files/${encodeURIComponent(file.id)}`}>${file.name}</a>
      <button type="button" class="button button--quiet button--small" onClick=${() => onRemove(file.id)}
        aria-label=${t("removeFile", { name: file.name })}>${t("remove")}</button>
    </li>`)}
  </ul>`;
}

/**
 * `name` makes the ids unique on the page; `onSubmit(body, attachmentIds)` answers a promise.
 * `initial` {text, picked} to edit an existing body.
 */
export function Composer({ name, label, members, onSubmit, onCancel = null, submitLabel, initial = null,
  withAttachments = false, autofocus = false }) {
  const [text, setText] = useState(initial?.text ?? "");
  const picked = useRef(new Map(initial?.picked ?? []));
  const [mention, setMention] = useState(null);
  const [active, setActive] = useState(0);
  const [files, setFiles] = useState([]);
  const [uploading, setUploading] = useState(false);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  const caretAfterRender = useRef(null);
  const fieldId = `field-${name}`;
  const listId = `${name}-people`;
  const options = mention ? matchingMembers(members, mention.query) : [];
  const open = options.length > 0;

  useEffect(() => { if (autofocus) box.current?.focus(); }, []);

  const track = (value, caret) => {
    setText(value);
    const found = mentionAt(value, caret);
    setMention(found);
    setActive(0);
  };

  const pick = (member) => {
    const caret = box.current?.selectionStart ?? text.length;
    const next = `${text.slice(0, mention.start)}@${member.name} ${text.slice(caret)}`;
    picked.current.set(member.name, member.id);
    setText(next);
    setMention(null);
    caretAfterRender.current = mention.start + member.name.length + 2;
  };
  // The caret goes after the inserted name as soon as the new text is in the DOM (a layout effect runs before
  // the next key event is handled): set later, a key typed meanwhile would land after the caret and the rest of
  // the word before it.
  useLayoutEffect(() => {
    const at = caretAfterRender.current;
    if (at === null) return;
    caretAfterRender.current = null;
    box.current?.focus();
    box.current?.setSelectionRange(at, at);
  });

  const send = async () => {
    if (busy) return;
    if (!text.trim()) {
      setErrors({ [name]: t("bodyRequired") });
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      await onSubmit(bodyForServer(text, picked.current), files.map((file) => file.id));
      setText("");
      setFiles([]);
      picked.current = new Map();
    } catch (error) {
      const found = errorsFrom(error, ["body"]);
      setErrors(found.body ? { [name]: found.body, ...(found._form ? { _form: found._form } : {}) } : found);
    } finally {
      setBusy(false);
    }
  };

  const keydown = (event) => {
    if (open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((active + step + options.length) % options.length);
    } else if (open && (event.key === "Enter" || event.key === "Tab") && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      pick(options[active]);
    } else if (open && event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      setMention(null);
    } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape" && onCancel) {
      event.preventDefault();
      onCancel();
    }
  };

  const attach = async (event) => {
    const chosen = [...event.currentTarget.files];
    event.currentTarget.value = "";
    setUploading(true);
    try {
      for (const file of chosen) {
        const stored = await upload(file);
        setFiles((old) => [...old, { id: stored.id, name: stored.name ?? file.name }]);
      }
      setErrors({});
    } catch (error) {
      setErrors({ [`${name}-file`]: t("uploadFailed", { message: error.message }) });
    } finally {
      setUploading(false);
    }
  };

  const error = errors[name];
  const fileError = errors[`${name}-file`];
  return html`<form class="composer" noValidate onSubmit=${(event) => { event.preventDefault(); send(); }}>
    <${ErrorSummary} title=${t("errorSummary")} errors=${errors} />
    <div class=${`field composer__field${error ? " field--error" : ""}`}>
      <label for=${fieldId}>${label}</label>
      <p class="hint" id=${`${fieldId}-hint`}>${t("composerHint")}</p>
      ${error && html`<p class="field-error" id=${`${fieldId}-error`}><span class="visually-hidden">${t("errorPrefix")}</span> ${error}</p>`}
      <div class="composer__box">
        <textarea id=${fieldId} ref=${box} class="input composer__text" rows="3" value=${text}
          role="combobox" aria-autocomplete="list" aria-expanded=${open ? "true" : "false"} aria-controls=${listId}
          aria-activedescendant=${open ? `${listId}-${active}` : undefined}
          aria-describedby=${[`${fieldId}-hint`, error ? `${fieldId}-error` : ""].filter(Boolean).join(" ")}
          aria-invalid=${error ? "true" : undefined}
          onInput=${(event) => track(event.currentTarget.value, event.currentTarget.selectionStart)}
          onKeyDown=${keydown} onBlur=${() => setTimeout(() => setMention(null), 150)}></textarea>
        <ul id=${listId} role="listbox" class="mention-list" aria-label=${t("mentionList")} hidden=${!open}>
          ${options.map((member, index) => html`<li key=${member.id} id=${`${listId}-${index}`} role="option"
              aria-selected=${index === active ? "true" : "false"} class="mention-list__option"
              onMouseDown=${(event) => { event.preventDefault(); pick(member); }}>
            <span class="mention-list__name">${member.name}</span>
            <span class="mention-list__email">${member.email}</span>
          </li>`)}
        </ul>
      </div>
    </div>
    ${withAttachments && html`<div class=${`composer__attach${fileError ? " field--error" : ""}`}>
      ${fileError && html`<p class="field-error" id=${`field-${name}-file`} tabindex="-1">${fileError}</p>`}
      <label class="button button--secondary button--small composer__file-label">
        ${uploading ? t("uploading") : t("attachFiles")}
        <input type="file" multiple class="visually-hidden" onChange=${attach} disabled=${uploading} />
      </label>
      <${Attachments} files=${files} onRemove=${(id) => setFiles(files.filter((file) => file.id !== id))} />
    </div>`}
    <div class="button-row composer__buttons">
      <button type="submit" class="button button--primary" disabled=${busy || uploading}
        aria-busy=${busy ? "true" : undefined}>${submitLabel}</button>
      ${onCancel && html`<button type="button" class="button button--secondary" onClick=${onCancel}>${t("cancel")}</button>`}
    </div>
  </form>`;
}

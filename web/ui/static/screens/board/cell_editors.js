// The control that edits one column type's value (docs/column-types.md). Each editor gets the value now
// saved and reports the value to save through `onChange` (the frame in cells.js saves it with its Save button)
// or, where one choice is the whole edit (a status label), saves at once through `onPick`. What the person types
// is sent as typed (a number field's "abc" goes as text), so the server's validation message is what they read.
import { html, useState, useId, useMemo } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { upload } from "../../api.js";
import { LabelChip, inkOn } from "./cell_values.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

/** Text typed into a number field: empty clears, a number is sent as one, anything else as typed. */
export function parseNumber(text) {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const parsed = Number(trimmed.replace(",", "."));
  return Number.isFinite(parsed) ? parsed : trimmed;
}

/** The editor's own copy of what is being chosen (the saved value is only where it starts), reported on change. */
function useDraft(initial, onChange) {
  const [draft, setDraft] = useState(initial);
  return [draft, (next) => { setDraft(next); onChange(next); }];
}

/** The attributes that tie a field to the refusal shown under it (`errorId`: the message's id, or null). */
const invalid = (errorId) => (errorId ? { "aria-invalid": "true", "aria-describedby": errorId } : {});

function TextInput({ label, type = "text", value, onChange, inputmode, multiline = false, errorId = null }) {
  const id = useId();
  const [text, setText] = useState(value ?? "");
  const input = (event) => { setText(event.currentTarget.value); onChange(event.currentTarget.value); };
  return html`<div class="editor__field"><label for=${id}>${label}</label>
    ${multiline ? html`<textarea id=${id} class="input" rows="5" value=${text} onInput=${input} ...${invalid(errorId)}></textarea>`
      : html`<input id=${id} class="input" type=${type} inputmode=${inputmode} value=${text} onInput=${input}
        ...${invalid(errorId)} />`}
  </div>`;
}

function NumberEditor({ column, value, onChange, errorId }) {
  const id = useId();
  const [text, setText] = useState(value === null || value === undefined ? "" : String(value));
  const suffix = column.config?.suffix || (column.type === "percentage" || column.type === "progress" ? "%" : "")
    || (column.type === "currency" ? column.config?.currency ?? "" : "");
  return html`<div class="editor__field"><label for=${id}>${column.name}</label>
    <span class="editor__number"><input id=${id} class="input" type="text" inputmode="decimal" value=${text} ...${invalid(errorId)}
      onInput=${(event) => { setText(event.currentTarget.value); onChange(parseNumber(event.currentTarget.value)); }} />
      ${suffix && html`<span aria-hidden="true">${suffix}</span>`}</span>
  </div>`;
}

/** One label picked from a column's labels (status, priority): picking saves. */
function LabelPicker({ column, value, onPick }) {
  const labels = column.config?.labels ?? [];
  return html`<div class="editor__choices" role="group" aria-label=${column.name}>
    ${labels.map((label) => html`<button key=${label.id} type="button" class="choice" aria-pressed=${value?.id === label.id ? "true" : "false"}
        style=${{ background: label.color, color: inkOn(label.color) }} onClick=${() => onPick({ id: label.id })}>
      ${label.name}</button>`)}
    <button type="button" class="button button--quiet" onClick=${() => onPick(null)}>${t("clear")}</button>
  </div>`;
}

/** Several of a fixed set picked with checkboxes (tags, a multiple dropdown, people). */
function CheckList({ legend, options, chosen, onChange, render = (option) => option.label }) {
  const picked = new Set(chosen);
  const toggle = (key) => {
    const next = new Set(picked);
    if (next.has(key)) next.delete(key); else next.add(key);
    onChange(options.map((option) => option.key).filter((key) => next.has(key)));
  };
  return html`<fieldset class="editor__list"><legend class="visually-hidden">${legend}</legend>
    ${options.map((option) => html`<label key=${option.key} class="checkbox">
      <input type="checkbox" checked=${picked.has(option.key)} onChange=${() => toggle(option.key)} />
      ${render(option)}</label>`)}
  </fieldset>`;
}

function TagsEditor({ column, value, onChange }) {
  const options = (column.config?.labels ?? []).map((label) => ({ key: label.id, label: label.name, color: label.color }));
  const [ids, setIds] = useDraft((value ?? []).map((entry) => entry.id), (next) => onChange(next.map((id) => ({ id }))));
  return html`<${CheckList} legend=${column.name} options=${options} chosen=${ids} onChange=${setIds}
    render=${(option) => html`<${LabelChip} label=${option.label} color=${option.color} />`} />`;
}

function DropdownEditor({ column, value, onChange, errorId }) {
  const id = useId();
  const options = column.config?.options ?? [];
  const multiple = column.config?.multiple === true;
  const [picked, setPicked] = useDraft(value ?? (multiple ? [] : null), onChange);
  if (multiple) {
    return html`<${CheckList} legend=${column.name} options=${options.map((o) => ({ key: o, label: o }))}
      chosen=${picked} onChange=${setPicked} />`;
  }
  return html`<div class="editor__field"><label for=${id}>${column.name}</label>
    <select id=${id} class="input" ...${invalid(errorId)} value=${picked ?? ""} onChange=${(event) => setPicked(event.currentTarget.value || null)}>
      <option value="">${t("none")}</option>
      ${options.map((option) => html`<option key=${option} value=${option}>${option}</option>`)}
    </select></div>`;
}

function PeopleEditor({ column, value, onChange, members }) {
  const id = useId();
  const [search, setSearch] = useState("");
  const multiple = column.config?.multiple !== false;
  const [chosen, setChosen] = useState(value ?? []);
  const shown = (members ?? []).filter((member) => !search || `${member.name} ${member.email}`.toLowerCase()
    .includes(search.toLowerCase()));
  const change = (ids) => {
    const next = multiple ? ids : ids.filter((person) => !chosen.includes(person)).slice(-1);
    setChosen(next);
    onChange(next);
  };
  // Everyone chosen stays listed while searching, so a choice never disappears from view.
  const options = [...(members ?? []).filter((m) => chosen.includes(m.id) && !shown.includes(m)), ...shown]
    .map((member) => ({ key: member.id, label: member.name }));
  return html`<div class="editor__field"><label for=${id}>${t("searchMembers")}</label>
    <input id=${id} class="input" type="search" value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
    ${options.length ? html`<${CheckList} legend=${column.name} options=${options} chosen=${chosen} onChange=${change} />`
      : html`<p>${t("noMembers")}</p>`}
  </div>`;
}

function DateEditor({ label, value, onChange, errorId = null }) {
  const id = useId();
  const timestamp = typeof value === "string" && value.includes("T");
  const [text, setText] = useState(value ? (timestamp ? value.slice(0, 16) : value) : "");
  return html`<div class="editor__field"><label for=${id}>${label}</label>
    <input id=${id} class="input" type=${timestamp ? "datetime-local" : "date"} value=${text} ...${invalid(errorId)}
      onInput=${(event) => {
        const next = event.currentTarget.value;
        setText(next);
        onChange(next === "" ? null : timestamp ? `${next}:00Z` : next);
      }} /></div>`;
}

function RangeEditor({ value, onChange }) {
  const [range, setRange] = useState({ from: value?.from ?? null, to: value?.to ?? null });
  const set = (end) => (next) => {
    const updated = { ...range, [end]: next };
    setRange(updated);
    onChange(updated.from === null && updated.to === null ? null : updated);
  };
  return html`<div class="editor__pair">
    <${DateEditor} label=${t("from")} value=${range.from} onChange=${set("from")} />
    <${DateEditor} label=${t("to")} value=${range.to} onChange=${set("to")} />
  </div>`;
}

function CheckboxEditor({ column, value, onChange }) {
  const [checked, setChecked] = useDraft(value === true, onChange);
  return html`<label class="checkbox"><input type="checkbox" checked=${checked}
    onChange=${(event) => setChecked(event.currentTarget.checked)} />
    ${column.name}</label>`;
}

function RatingEditor({ column, value, onChange, errorId }) {
  const id = useId();
  const max = column.config?.max ?? 5;
  const [rating, setRating] = useDraft(value ?? 0, onChange);
  return html`<div class="editor__field"><label for=${id}>${column.name}</label>
    <select id=${id} class="input" ...${invalid(errorId)} value=${String(rating)} onChange=${(e) => setRating(Number(e.currentTarget.value))}>
      ${Array.from({ length: max + 1 }, (_, n) => html`<option key=${n} value=${String(n)}>
        ${n === 0 ? t("noRating") : t("ratingOf", { value: n, max })}</option>`)}
    </select></div>`;
}

function LinkEditor({ value, onChange }) {
  const [link, setLink] = useState({ url: value?.url ?? "", text: value?.text ?? "" });
  const set = (field) => (text) => {
    const next = { ...link, [field]: text };
    setLink(next);
    onChange(next.url === "" && next.text === "" ? null : next.text ? next : { url: next.url });
  };
  return html`<div>
    <${TextInput} label=${t("url")} type="url" value=${link.url} onChange=${set("url")} />
    <${TextInput} label=${t("linkText")} value=${link.text} onChange=${set("text")} />
  </div>`;
}

function TimeEditor({ value, onChange, onPick }) {
  const current = { totalSeconds: value?.totalSeconds ?? 0, running: value?.running ?? false,
    startedAt: value?.startedAt ?? null };
  const [hours, setHours] = useState(String(Math.floor(current.totalSeconds / 3600)));
  const [minutes, setMinutes] = useState(String(Math.floor((current.totalSeconds % 3600) / 60)));
  const report = (h, m) => onChange({ ...current, totalSeconds: Math.round((parseNumber(h) || 0) * 3600 + (parseNumber(m) || 0) * 60) });
  const toggle = () => {
    if (current.running) {
      const elapsed = Math.max(0, Math.round((Date.now() - Date.parse(current.startedAt)) / 1000));
      onPick({ totalSeconds: current.totalSeconds + elapsed, running: false, startedAt: null });
    } else onPick({ totalSeconds: current.totalSeconds, running: true, startedAt: new Date().toISOString() });
  };
  return html`<div>
    <div class="editor__pair">
      <${TextInput} label=${t("hours")} inputmode="numeric" value=${hours} onChange=${(h) => { setHours(h); report(h, minutes); }} />
      <${TextInput} label=${t("minutes")} inputmode="numeric" value=${minutes} onChange=${(m) => { setMinutes(m); report(hours, m); }} />
    </div>
    <button type="button" class="button button--secondary" onClick=${toggle}>
      ${current.running ? t("stopTimer") : t("startTimer")}</button>
  </div>`;
}

function FileEditor({ value, onChange }) {
  const id = useId();
  const [files, setFiles] = useState(value ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const change = (next) => { setFiles(next); onChange(next); };
  const chosen = async (event) => {
    const input = event.currentTarget;
    const picked = Array.from(input.files ?? []);
    setBusy(true);
    setError(null);
    try {
      const added = [];
      for (const file of picked) added.push(await upload(file));
      // The value keeps the file's name, size and type: a cell lists files by name without reading each one.
      change([...files, ...added.map((record) => ({ id: record.id, name: record.name, size: record.size,
        ...(record.type ? { mimeType: record.type } : {}) }))]);
    } catch (failure) {
      setError(failure.message);
    } finally {
      setBusy(false);
      input.value = "";
    }
  };
  return html`<div>
    <ul class="editor__files">${files.map((file) => html`<li key=${file.id}>
      <a href=${`/api/v1/files/${encodeURIComponent(file.id)}`} data-reload download=${file.name ?? ""}>${file.name ?? file.id}</a>
      <button type="button" class="button button--quiet button--small" onClick=${() => change(files.filter((f) => f.id !== file.id))}>
        ${t("removeFile", { file: file.name ?? file.id })}</button></li>`)}</ul>
    <div class="editor__field"><label for=${id}>${t("uploadFile")}</label>
      <input id=${id} type="file" multiple onChange=${chosen} disabled=${busy} /></div>
    ${busy && html`<p role="status">${t("uploading")}</p>`}
    ${error && html`<p class="field-error" role="alert">${error}</p>`}
  </div>`;
}

function DependencyEditor({ column, value, onChange, items }) {
  const [search, setSearch] = useState("");
  const id = useId();
  const [chosen, setChosen] = useDraft(value ?? [], onChange);
  const all = useMemo(() => (items ? Array.from(items.values()) : []), [items]);
  if (!items) {
    return html`<${TextInput} label=${t("dependencyIds")} value=${chosen.join(", ")}
      onChange=${(text) => setChosen(text.split(",").map((part) => part.trim()).filter(Boolean))} />`;
  }
  const shown = all.filter((item) => chosen.includes(item.id)
    || (search && item.name.toLowerCase().includes(search.toLowerCase()))).slice(0, 50);
  return html`<div class="editor__field"><label for=${id}>${t("searchItems")}</label>
    <input id=${id} class="input" type="search" value=${search} onInput=${(e) => setSearch(e.currentTarget.value)} />
    <${CheckList} legend=${column.name} options=${shown.map((item) => ({ key: item.id, label: item.name }))}
      chosen=${chosen} onChange=${setChosen} /></div>`;
}

function ColorEditor({ column, value, onChange }) {
  const id = useId();
  const [colour, setColour] = useState(value ?? "#000000");
  return html`<div class="editor__field"><label for=${id}>${column.name}</label>
    <input id=${id} type="color" class="editor__colour" value=${colour}
      onInput=${(event) => { setColour(event.currentTarget.value); onChange(event.currentTarget.value); }} /></div>`;
}

const TEXT_TYPES = { text: "text", email: "email", phone: "tel", url: "url" };

/** The editor control for `column`'s type, or null when the type is computed (read-only). */
export function EditorControl(props) {
  const { column } = props;
  switch (column.type) {
    case "text": case "email": case "phone": case "url":
      return html`<${TextInput} label=${column.name} type=${TEXT_TYPES[column.type]} value=${props.value}
        onChange=${props.onChange} errorId=${props.errorId} />`;
    case "long_text":
      return html`<${TextInput} label=${column.name} multiline value=${props.value} onChange=${props.onChange}
        errorId=${props.errorId} />`;
    case "number": case "currency": case "percentage": case "progress":
      return html`<${NumberEditor} ...${props} />`;
    case "status": case "priority":
      return html`<${LabelPicker} ...${props} />`;
    case "label":
      return html`<${TagsEditor} ...${props} />`;
    case "dropdown":
      return html`<${DropdownEditor} ...${props} />`;
    case "people":
      return html`<${PeopleEditor} ...${props} />`;
    case "date":
      return html`<${DateEditor} label=${column.name} value=${props.value} onChange=${props.onChange}
        errorId=${props.errorId} />`;
    case "date_range": case "timeline":
      return html`<${RangeEditor} ...${props} />`;
    case "checkbox":
      return html`<${CheckboxEditor} ...${props} />`;
    case "rating":
      return html`<${RatingEditor} ...${props} />`;
    case "link":
      return html`<${LinkEditor} ...${props} />`;
    case "time_tracking":
      return html`<${TimeEditor} ...${props} />`;
    case "file":
      return html`<${FileEditor} ...${props} />`;
    case "dependency":
      return html`<${DependencyEditor} ...${props} />`;
    case "color":
      return html`<${ColorEditor} ...${props} />`;
    default:
      return null;
  }
}

/** Types whose editor saves by itself (one pick is the whole edit): no Save button. */
export const PICKED_TYPES = new Set(["status", "priority"]);

// How a column value reads in a cell, for every column type of docs/column-types.md: a label with its colour
// AND its text (colour is never the only cue), numbers and dates through format.js (the viewer's locale), links
// that open, computed values as they come. Read-only; the editors are in cell_editors.js.
import { html } from "../../lib.js";
import { catalogue } from "../../i18n.js";
import { number, day, dateTime } from "../../format.js";
import strings from "../board.strings.js";

const t = catalogue(strings);

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
/** A link to a web address; anything but http(s) (a `javascript:` URL the server would refuse anyway) is shown
 * as plain text, never followed. */
function webLink(url, text) {
  let scheme = "";
  try {
    scheme = new URL(url).protocol;
  } catch {
    return text;
  }
  return scheme === "http:" || scheme === "https:"
    ? html`<a href=${url} target="_blank" rel="noopener noreferrer">${text}</a>` : text;
}

export function inkOn(hex) {
  const match = /^#([0-9a-f]{6})$/i.exec(hex ?? "");
  if (!match) return "#0b0c0c";
  const channel = (offset) => {
    const c = parseInt(match[1].slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const light = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) ? "#0b0c0c" : "#ffffff";
}

/** A coloured label: its name in text on its colour. */
export function LabelChip({ label, color }) {
  const style = color ? { background: color, color: inkOn(color) } : undefined;
  return html`<span class="chip chip--label" style=${style}>${label}</span>`;
}

const isEmpty = (value) => value === null || value === undefined || value === "" ||
  (Array.isArray(value) && value.length === 0);

/** A date or timestamp value: a calendar day stays that day; a timestamp shows where the viewer is. */
export function when(value) {
  return String(value).includes("T") ? dateTime(value) : day(value);
}

function money(value, config) {
  try {
    return new Intl.NumberFormat(navigator.language, { style: "currency", currency: config?.currency ?? "USD",
      minimumFractionDigits: config?.decimals ?? 2, maximumFractionDigits: config?.decimals ?? 2 }).format(value);
  } catch {
    return number(value);
  }
}

/** Whole seconds as "2 h 5 min". */
export function duration(seconds) {
  const total = Math.max(0, Math.floor(seconds / 60));
  return t("duration", { hours: Math.floor(total / 60), minutes: total % 60 });
}

function personName(id, members) {
  return members?.find((member) => member.id === id)?.name ?? t("unknownPerson");
}

/** The cell's content for one column type. */
function display(column, value, members, items) {
  const config = column.config ?? {};
  switch (column.type) {
    case "status":
    case "priority":
      return html`<${LabelChip} label=${value.label ?? String(value)} color=${value.color} />`;
    case "label":
      return html`<span class="chips">${value.map((entry) => html`<${LabelChip} key=${entry.id}
        label=${entry.label} color=${entry.color} />`)}</span>`;
    case "dropdown": {
      const options = Array.isArray(value) ? value : [value];
      return html`<span class="chips">${options.map((option) => html`<span key=${option} class="chip">${option}</span>`)}</span>`;
    }
    case "people":
      return html`<span class="people">${value.map((id) => html`<span key=${id} class="person">
        <span class="person__initials" aria-hidden="true">${personName(id, members).slice(0, 1)}</span>
        ${personName(id, members)}</span>`)}</span>`;
    case "date":
    case "created_date":
    case "last_updated":
      return when(value);
    case "date_range":
    case "timeline":
      return `${when(value.from)} – ${when(value.to)}`;
    case "number": {
      const suffix = config.suffix ? ` ${config.suffix}` : "";
      return `${number(value)}${suffix}`;
    }
    case "currency":
      return money(value, config);
    case "percentage":
      return t("percent", { value: number(value) });
    case "progress":
      return html`<span class="progress">
        <span class="progress__bar" aria-hidden="true"><span class="progress__fill" style=${{ width: `${value}%` }}></span></span>
        <span>${t("percent", { value: number(value) })}</span></span>`;
    case "rating": {
      const max = config.max ?? 5;
      return html`<span class="rating"><span aria-hidden="true" class="rating__stars">${"★".repeat(value)}${"☆".repeat(Math.max(0, max - value))}</span>
        <span class="visually-hidden">${t("ratingOf", { value, max })}</span></span>`;
    }
    case "checkbox":
      return value ? html`<span class="check"><span aria-hidden="true">✓ </span>${t("yes")}</span>` : t("no");
    case "link":
      return webLink(value.url, value.text || value.url);
    case "url":
      return webLink(value, value);
    case "email":
      return html`<a href=${`mailto:${value}`}>${value}</a>`;
    case "phone":
      return html`<a href=${`tel:${value}`}>${value}</a>`;
    case "long_text":
      return html`<span class="cell__long" title=${value}>${String(value).split("\n")[0]}</span>`;
    case "color":
      return html`<span class="swatch"><span class="swatch__box" style=${{ background: value }} aria-hidden="true"></span>${value}</span>`;
    case "file":
      return html`<span class="files">${value.map((file) => html`<a key=${file.id} href=${`/api/v1/files/${encodeURIComponent(file.id)}`}
        data-reload download=${file.name ?? ""}>${file.name ?? file.id}</a>`)}</span>`;
    case "time_tracking":
      return `${duration(value.totalSeconds ?? 0)}${value.running ? ` (${t("timerRunning")})` : ""}`;
    case "dependency": {
      const names = value.map((id) => items?.get?.(id)?.name).filter(Boolean);
      return names.length === value.length ? names.join(", ") : t("items", { count: value.length });
    }
    case "auto_number":
      return t("itemNumber", { number: value });
    case "formula":
      return typeof value === "number" ? number(value) : String(value);
    case "lookup":
      if (Array.isArray(value)) return value.map((entry) => lookupEntry(entry)).join(", ");
      return lookupEntry(value);
    default:
      return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

function lookupEntry(entry) {
  if (entry && typeof entry === "object") return entry.label ?? entry.text ?? JSON.stringify(entry);
  return typeof entry === "number" ? number(entry) : String(entry);
}

/**
 * A column's value as a cell shows it. `members` (organizations.members.list entries) names people;
 * `items` (a Map of id -> item) names dependencies. Both optional.
 */
export function CellValue({ column, value, members = null, items = null }) {
  if (isEmpty(value)) return html`<span class="cell__empty"><span class="visually-hidden">${t("empty")}</span></span>`;
  return html`<span class=${`cell-value cell-value--${column.type}`}>${display(column, value, members, items)}</span>`;
}

// Dates, times, numbers and durations in the viewer's locale and time zone (Intl), the one way screens show
// them. The server speaks ISO 8601 UTC; a date-only value ("2026-11-28") is a calendar day, not an instant.

const locale = navigator.language;
const dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });
const dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
const timeFormat = new Intl.DateTimeFormat(locale, { timeStyle: "medium" });
const numberFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });
const relative = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });

/** The calendar day ("2026-11-28", as a date field holds it) an instant falls on where the viewer is. */
export function localDay(instant) {
  const at = new Date(instant);
  const pad = (value) => String(value).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** An instant ("2026-11-28T10:00:00.000Z") as date and time where the viewer is. */
export function dateTime(iso) {
  return iso ? dateTimeFormat.format(new Date(iso)) : "";
}

/** An instant's date where the viewer is. */
export function date(iso) {
  return iso ? dateFormat.format(new Date(iso)) : "";
}

/** A calendar day ("2026-11-28", or the date part of an ISO instant) as that same day, whatever the zone. */
export function day(value) {
  return value ? dayFormat.format(new Date(`${String(value).slice(0, 10)}T00:00:00Z`)) : "";
}

/** A time of day with seconds, where the viewer is. */
export function time(instant) {
  return timeFormat.format(instant instanceof Date ? instant : new Date(instant));
}

/** "2,5" or "2.5" as typed into a value field, as a number; null when it is not one. */
export function parseNumber(text) {
  const cleaned = text.trim().replace(/\s/g, "");
  const normal = cleaned.includes(".") ? cleaned.replace(/,/g, "") : cleaned.replace(",", ".");
  if (!/^[-+]?\d*\.?\d+$/.test(normal)) return null;
  return Number(normal);
}

export function number(value) {
  return value === null || value === undefined || value === "" ? "" : numberFormat.format(Number(value));
}

/** "5 minutes ago", "in 2 days": how far `iso` is from now. */
export function ago(iso, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  /** @type {[number, Intl.RelativeTimeFormatUnit][]} */
  const steps = [[60, "second"], [60, "minute"], [24, "hour"], [7, "day"], [4.35, "week"], [12, "month"]];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return relative.format(Math.round(value), unit);
    value /= size;
  }
  return relative.format(Math.round(value), "year");
}

/** A duration in milliseconds as a running clock: "4:05", or "1:04:05" from an hour on (a timer's face). */
export function duration(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const pad = (value) => String(value).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds / 60) % 60;
  return hours ? `${hours}:${pad(minutes)}:${pad(seconds % 60)}` : `${minutes}:${pad(seconds % 60)}`;
}

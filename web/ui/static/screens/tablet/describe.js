// What a queued write is, in the person's words: each entry carries `about` ({what, name, value}) when it is
// queued, so the queue can be shown and a refusal explained without the data it was made from.
import { number } from "../../format.js";

export function describe(t, entry) {
  const about = entry.about ?? { what: "kpi", name: entry.procedure ?? entry.fileName, value: "" };
  const value = typeof about.value === "number" ? number(about.value) : about.value;
  return t(`what.${about.what}`, { name: about.name, value });
}

// Person-visible text: every screen keeps its strings in one catalogue (screens/<name>.strings.js), so a
// plant can translate a screen by translating one file. `catalogue(strings)` returns `t(key, values)`,
// which fills `{name}` placeholders and, for a key whose entry is an object, picks the plural form
// (`{one: "1 item", other: "{count} items"}`) with Intl.PluralRules for `values.count`. A numeric `count` reads
// in the viewer's locale ("2,000 items").
import { number } from "./format.js";

const plurals = new Intl.PluralRules(navigator.language);

/**
 * @param {Record<string, string | Record<string, string>>} strings
 * @returns {(key: string, values?: Record<string, any>) => string}
 */
export function catalogue(strings) {
  return (key, values = {}) => {
    let entry = strings[key];
    if (entry === undefined) {
      console.warn(`missing string: ${key}`);
      return key;
    }
    if (typeof entry === "object") entry = entry[plurals.select(values.count ?? 0)] ?? entry.other;
    const shown = (name) => (name === "count" && typeof values.count === "number" ? number(values.count) : String(values[name]));
    return entry.replace(/\{(\w+)\}/g, (_, name) => (name in values ? shown(name) : `{${name}}`));
  };
}

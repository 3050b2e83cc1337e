// Translations for the scripts. The page hands over every string the board
// needs in a JSON block, so no text is written in the scripts themselves.

/**
 * makeT returns t(key, vars): the text of key with {name} placeholders
 * filled from vars; the key itself when the page has no text for it.
 */
export function makeT(strings) {
  const t = (key, vars = {}) => {
    let s = Object.hasOwn(strings, key) ? strings[key] : key;
    for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
    return s;
  };
  t.has = (key) => Object.hasOwn(strings, key);
  return t;
}

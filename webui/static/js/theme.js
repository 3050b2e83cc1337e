// The site's theme, light or dark: the system's (prefers-color-scheme) until
// the person chooses one, then theirs, remembered in this browser. A classic
// script loaded in <head>, so the page is drawn in its theme from the first
// paint. It sets <html data-theme> only for a chosen theme; site.css follows
// the system otherwise. window.banmenTheme lets the board pages offer the
// choice too (look.js).
(() => {
  const KEY = 'banmen.theme';
  const root = document.documentElement;
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  const read = () => { try { return localStorage.getItem(KEY) || ''; } catch { return ''; } };
  const apply = (v) => {
    if (v === 'light' || v === 'dark') root.dataset.theme = v; else delete root.dataset.theme;
  };
  const effective = () => root.dataset.theme || (dark.matches ? 'dark' : 'light');
  const listeners = [];
  const sync = () => {
    const btn = document.getElementById('theme-toggle');
    if (btn) btn.setAttribute('aria-pressed', String(effective() === 'dark'));
    for (const f of listeners) f();
  };
  const set = (v) => {
    try { if (v) localStorage.setItem(KEY, v); else localStorage.removeItem(KEY); } catch { /* not kept */ }
    apply(v);
    sync();
  };
  apply(read());
  dark.addEventListener('change', sync);
  window.banmenTheme = { get: read, set, effective, onChange: (f) => listeners.push(f) };
  document.addEventListener('DOMContentLoaded', () => {
    const btn = document.getElementById('theme-toggle');
    if (!btn) return;
    btn.addEventListener('click', () => set(effective() === 'dark' ? 'light' : 'dark'));
    sync();
  });
})();

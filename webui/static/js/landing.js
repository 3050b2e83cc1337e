// The landing and "room gone" pages: Play with a friend creates a room and
// opens it (the creator holds the first seat). For a game with room
// settings (Yonin) the landing page asks them first (#room-settings).

import { ApiError } from './api.js';
import { createRoom, StorageOff } from './rooms.js';

const err = document.getElementById('friend-error');
for (const b of document.querySelectorAll('.mode-friend, .new-room')) {
  b.addEventListener('click', async () => {
    const all = document.querySelectorAll('.mode-friend, .new-room');
    for (const x of all) x.disabled = true;
    b.setAttribute('aria-busy', 'true');
    err.hidden = true;
    b.closest('section, p')?.after(err);
    try {
      let options;
      const dlg = document.getElementById('room-settings');
      if (dlg && b.classList.contains('mode-friend')) {
        options = await askSettings(dlg);
        if (!options) {
          for (const x of all) x.disabled = false;
          b.removeAttribute('aria-busy');
          return;
        }
      }
      location.assign(await createRoom(b.dataset.variant, b.dataset.lang, options));
    } catch (e) {
      if (e instanceof StorageOff) err.textContent = err.dataset.storage;
      else {
        const why = e instanceof ApiError && e.code !== 'network' ? e.message : err.dataset.network;
        err.textContent = err.dataset.failed.replace('{error}', why);
      }
      err.hidden = false;
      for (const x of all) x.disabled = false;
      b.removeAttribute('aria-busy');
    }
  });
}

/** askSettings shows the room settings and resolves to them, or null when cancelled. */
function askSettings(dlg) {
  return new Promise((resolve) => {
    dlg.returnValue = '';
    dlg.addEventListener('close', () => {
      if (dlg.returnValue !== 'yes') { resolve(null); return; }
      const out = {};
      for (const el of dlg.querySelectorAll('[data-key]')) {
        out[el.dataset.key] = el.dataset.type === 'bool' ? String(el.checked) : String(el.value);
        // An int with a value meaning none ("no limit"): no number (ticking
        // No limit clears it).
        if (el.dataset.none !== undefined && el.value.trim() === '') {
          out[el.dataset.key] = el.dataset.none;
        }
      }
      resolve(out);
    }, { once: true });
    dlg.showModal();
  });
}

// "No limit" beside a number: ticking it clears the number, typing one unticks it.
for (const box of document.querySelectorAll('[data-none-of]')) {
  const num = document.getElementById(box.dataset.noneOf);
  box.addEventListener('change', () => { if (box.checked) num.value = ''; });
  num.addEventListener('input', () => { box.checked = num.value === ''; });
}

// The landing and "room gone" pages: Play with a friend creates a room and
// opens it (the creator holds the first seat).

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
      location.assign(await createRoom(b.dataset.variant, b.dataset.lang));
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

// Rooms (Play with a friend) as the pages see them: creating one, and the
// seat key this browser keeps per room. The key is never put in a URL.

import { postJSON } from './api.js';

const prefix = 'banmen.seat.';

/** seatKey is the key this browser keeps for a room's seat, or ''. */
export function seatKey(room) {
  for (const s of stores()) {
    try {
      const k = s.getItem(prefix + room);
      if (k) return k;
    } catch { /* storage refused */ }
  }
  return '';
}

/** keepSeatKey keeps a room's seat key; it returns false when no storage would keep it. */
export function keepSeatKey(room, key) {
  for (const s of stores()) {
    try {
      s.setItem(prefix + room, key);
      return true;
    } catch { /* try the next one */ }
  }
  return false;
}

export function dropSeatKey(room) {
  for (const s of stores()) {
    try { s.removeItem(prefix + room); } catch { /* nothing kept */ }
  }
}

function stores() {
  const out = [];
  try { out.push(window.localStorage); } catch { /* blocked */ }
  try { out.push(window.sessionStorage); } catch { /* blocked */ }
  return out.filter(Boolean);
}

/** canKeepSeats tells whether this browser lets the site keep a seat key. */
export function canKeepSeats() {
  if (!keepSeatKey('probe', '1')) return false;
  dropSeatKey('probe');
  return true;
}

/** StorageOff is thrown by createRoom when no storage would keep the host's seat. */
export class StorageOff extends Error {}

/**
 * createRoom creates a room of variant (with options, when given), keeps the host's seat key and
 * resolves to the room's page. Without storage it creates nothing: the
 * host would arrive without a key and be taken for the guest.
 */
export async function createRoom(variant, lang, options) {
  if (!canKeepSeats()) throw new StorageOff('storage');
  const res = await postJSON('/api/v1/rooms', options ? { variant, lang, options } : { variant, lang });
  if (!keepSeatKey(res.room, res.seatKey)) throw new StorageOff('storage');
  // ?new=1: the room's page lays its invitation out from the start (the
  // creator invites), so nothing moves when the server confirms it.
  return `/${encodeURIComponent(lang)}/${encodeURIComponent(res.variant)}/room/${encodeURIComponent(res.room)}?new=1`;
}

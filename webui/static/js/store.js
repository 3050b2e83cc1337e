// Saving in localStorage. Storage may be missing (a private window, a
// blocked site) or full; play must go on either way, so every failure is
// reported, never thrown.

/** Store keeps one JSON value under one key. */
export class Store {
  constructor(key) {
    this.key = key;
    this.ok = probe();
  }

  load() {
    if (!this.ok) return null;
    try {
      const raw = localStorage.getItem(this.key);
      return raw ? JSON.parse(raw) : null;
    } catch {
      return null;
    }
  }

  /** save returns false when the value could not be kept. */
  save(value) {
    if (!this.ok) return false;
    try {
      localStorage.setItem(this.key, JSON.stringify(value));
      return true;
    } catch {
      this.ok = false;
      return false;
    }
  }

  clear() {
    try { if (this.ok) localStorage.removeItem(this.key); } catch { /* nothing to clear */ }
  }
}

function probe() {
  try {
    const k = 'banmen.probe';
    localStorage.setItem(k, '1');
    localStorage.removeItem(k);
    return true;
  } catch {
    return false;
  }
}

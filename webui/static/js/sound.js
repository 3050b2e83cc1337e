// The board's sounds, synthesised with WebAudio (no file is fetched): a
// wooden tap for a move, a heavier double knock for a capture, two rising
// tones for check and a short chime at the end of a game. Muting is
// remembered in this browser (banmen.prefs "sound"). Browsers start audio
// only after a gesture on the page, so the context is made on the first
// one; a sound asked for before is silently skipped.

export class Sound {
  constructor(prefs) {
    this.prefs = prefs;
    this.muted = (prefs.load() || {}).sound === false;
    this.ctx = null;
    document.body.dataset.sound = this.muted ? 'off' : 'on';
    const wake = () => {
      if (!this.ctx && !this.muted) this.ctx = makeContext();
      this.ctx?.resume?.();
    };
    for (const ev of ['pointerdown', 'keydown']) window.addEventListener(ev, wake, { capture: true, passive: true });
  }

  setMuted(m) {
    this.muted = m;
    const p = this.prefs.load() || {};
    p.sound = !m;
    this.prefs.save(p);
    document.body.dataset.sound = m ? 'off' : 'on';
  }

  /** play makes the sound of kind: move, capture, check or end. */
  play(kind) {
    if (this.muted) return;
    document.body.dataset.lastSound = kind; // for tests: what was played
    const c = this.ctx;
    if (!c || c.state !== 'running') return;
    const t = c.currentTime + 0.01;
    switch (kind) {
      case 'capture':
        knock(c, t, 180, 0.5);
        knock(c, t + 0.07, 140, 0.45);
        break;
      case 'check':
        knock(c, t, 220, 0.35);
        tone(c, t + 0.02, 660, 0.12, 0.18);
        tone(c, t + 0.14, 880, 0.16, 0.18);
        break;
      case 'end':
        tone(c, t, 523, 0.22, 0.2);
        tone(c, t + 0.16, 659, 0.22, 0.2);
        tone(c, t + 0.32, 784, 0.4, 0.2);
        break;
      default:
        knock(c, t, 240, 0.4);
    }
  }
}

function makeContext() {
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try { return new AC(); } catch { return null; }
}

// knock is a wooden tap: a short burst of filtered noise over a low thump.
function knock(c, t, pitch, gain) {
  const len = Math.floor(c.sampleRate * 0.06);
  const buf = c.createBuffer(1, len, c.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < len; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / len) ** 3;
  const src = c.createBufferSource();
  src.buffer = buf;
  const bp = c.createBiquadFilter();
  bp.type = 'bandpass';
  bp.frequency.value = pitch * 6;
  bp.Q.value = 1.2;
  const g = c.createGain();
  g.gain.setValueAtTime(gain, t);
  g.gain.exponentialRampToValueAtTime(0.001, t + 0.08);
  src.connect(bp).connect(g).connect(c.destination);
  src.start(t);
  const o = c.createOscillator();
  o.frequency.setValueAtTime(pitch, t);
  o.frequency.exponentialRampToValueAtTime(pitch / 2, t + 0.08);
  const og = c.createGain();
  og.gain.setValueAtTime(gain * 0.6, t);
  og.gain.exponentialRampToValueAtTime(0.001, t + 0.09);
  o.connect(og).connect(c.destination);
  o.start(t);
  o.stop(t + 0.1);
}

function tone(c, t, freq, dur, gain) {
  const o = c.createOscillator();
  o.type = 'triangle';
  o.frequency.value = freq;
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, t);
  g.gain.exponentialRampToValueAtTime(gain, t + 0.02);
  g.gain.exponentialRampToValueAtTime(0.0001, t + dur);
  o.connect(g).connect(c.destination);
  o.start(t);
  o.stop(t + dur + 0.02);
}

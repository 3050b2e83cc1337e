// The parts of a game page that every mode shares: announcements, notices,
// dialogs, the promotion choice, the status line, the move list and the
// export panel. play.js (Same device, Vs computer) and room.js (Play with a
// friend) each feed them from their own game source. Nothing here knows a
// game rule: it shows what a View says.

import { ApiError } from './api.js';
import { glyphOf, kindOf, pieceSVG } from './pieces.js';

export const $ = (id) => document.getElementById(id);

/** makeUI returns the shared parts for one variant's Description and strings. */
export function makeUI({ t, desc }) {
  const ui = {};

  // ---- announcements and notices

  const live = $('live');
  let saying = 0; // the timer of the text about to be shown
  ui.announce = (text) => {
    // Clearing first makes a repeated text be spoken again. A text not shown
    // yet is dropped: it must never land after a newer one (a piece picked up
    // and a move answered within the pause would say the pickup last).
    clearTimeout(saying);
    live.textContent = '';
    saying = setTimeout(() => { live.textContent = text; }, 30);
  };

  ui.notice = (text, kind = 'info', id = '', key = '') => {
    const box = $('notices');
    if (id && box.querySelector(`[data-id="${id}"]`)) return null;
    const p = document.createElement('p');
    p.className = `notice notice-${kind}`;
    if (id) p.dataset.id = id;
    if (key) p.dataset.key = key; // the i18n key, for tests
    p.textContent = text;
    const x = document.createElement('button');
    x.type = 'button';
    x.className = 'notice-close';
    x.setAttribute('aria-label', t('ui.close'));
    x.textContent = '×';
    x.addEventListener('click', () => p.remove());
    p.append(x);
    box.append(p);
    return p;
  };

  ui.clearNotices = () => {
    for (const p of $('notices').querySelectorAll('.notice:not([data-id="storage"])')) p.remove();
  };

  /** errorKey is the i18n key of errorText's message. */
  ui.errorKey = (err) => {
    if (err instanceof ApiError) {
      if (err.code === 'network') return 'ui.network';
      return t.has(err.key) ? err.key : 'ui.error';
    }
    return 'ui.error';
  };

  ui.errorText = (err) => {
    if (err instanceof ApiError) {
      if (err.code === 'network') return t('ui.network');
      return t.has(err.key) ? t(err.key) : t('ui.error', { message: err.message });
    }
    return t('ui.error', { message: String(err?.message ?? err) });
  };

  /** noticeError shows an error as a notice. */
  ui.noticeError = (err) => { ui.notice(ui.errorText(err), 'error', '', ui.errorKey(err)); };

  // ---- dialogs

  // dialog opens a modal dialog and resolves to whether it was confirmed. The
  // close event is delivered asynchronously: if the dialog is reopened before
  // the last close reached its listener, that answer is settled at once and the
  // stale event is ignored by the new opening (the dialog is open again then).
  ui.dialog = (id) => {
    const d = $(id);
    d.settlePending?.();
    return new Promise((resolve) => {
      const settle = () => {
        d.removeEventListener('close', onClose);
        d.settlePending = null;
        resolve(d.returnValue === 'yes');
      };
      const onClose = () => { if (!d.open) settle(); };
      d.settlePending = settle;
      d.returnValue = '';
      d.addEventListener('close', onClose);
      d.showModal();
    });
  };

  ui.confirm = (text) => {
    $('confirm-text').textContent = text;
    return ui.dialog('confirm-dialog');
  };

  /** choosePromotion asks which of moves (the same from and to) to play. */
  ui.choosePromotion = async (view, moves) => {
    const box = $('promote-choices');
    box.replaceChildren();
    let chosen = null;
    const from = view.board[moves[0].from];
    for (const m of [...moves].sort((a, b) => Number(Boolean(b.promote)) - Number(Boolean(a.promote)))) {
      const b = document.createElement('button');
      b.type = 'submit';
      b.value = 'yes';
      b.className = 'promote-choice';
      b.dataset.promote = String(Boolean(m.promote));
      // A drop from an unlimited supply with more than one kind for the
      // cell: the choice is the kind (its picture and name).
      const drop = m.kind === 'drop';
      const cell = drop ? { kind: m.drop, owner: m.seat } : { ...from, promoted: Boolean(m.promote) || (from.promoted && !m.promote) };
      const kind = kindOf(desc, cell.kind);
      if (drop) b.dataset.kind = m.drop;
      b.innerHTML = `<svg viewBox="-50 -50 100 100" aria-hidden="true">${pieceSVG(desc, cell, 0, { ...(ui.pieceLook?.() || {}), color: desc.seats[cell.owner]?.color })}</svg>`;
      const label = document.createElement('span');
      label.textContent = drop ? (kind ? t(kind.nameKey) : m.drop)
        : `${m.promote ? t('ui.promote') : t('ui.noPromote')} (${glyphOf(kind, from.owner, cell.promoted)})`;
      b.append(label);
      b.addEventListener('click', () => { chosen = m; });
      box.append(b);
    }
    // By keyboard: the first choice has the focus, arrows go between the
    // choices, Enter or Space picks one, Escape cancels.
    box.onkeydown = (e) => {
      const list = [...box.querySelectorAll('.promote-choice')];
      const i = list.indexOf(document.activeElement);
      const d = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (!d || i < 0) return;
      e.preventDefault();
      list[(i + d + list.length) % list.length].focus();
    };
    const done = ui.dialog('promote-dialog');
    box.querySelector('.promote-choice')?.focus();
    const ok = await done;
    return ok ? chosen : null;
  };

  // ---- texts of a game

  ui.seatName = (s) => t(desc.seats[s]?.nameKey ?? String(s));

  ui.list = (names) => names.reduce((a, b) => (a ? t('ui.and', { a, b }) : b), '');

  /** resultKey is the i18n key of the head of resultText. */
  ui.resultKey = (v) => {
    const r = v.result;
    if (!r) return 'ui.gameOver';
    if (r.draw || !(r.winners || []).length) return 'ui.draw';
    return r.winners.length === 1 ? 'ui.wins' : 'ui.winTeam';
  };

  ui.resultText = (v) => {
    const r = v.result;
    if (!r) return t('ui.gameOver');
    const why = t.has(r.reason) ? t(r.reason) : r.reason;
    let head;
    if (r.draw || !(r.winners || []).length) head = t('ui.draw');
    else if (r.winners.length === 1) head = t('ui.wins', { seat: ui.seatName(r.winners[0]) });
    else head = t('ui.winTeam', { seats: ui.list(r.winners.map(ui.seatName)) });
    return `${head} — ${why}`;
  };

  /** seatDot is the coloured dot of a seat. */
  ui.seatDot = (s) => {
    const dot = document.createElement('span');
    dot.className = 'seat-dot';
    if (s !== undefined && desc.seats[s]) dot.style.background = desc.seats[s].color;
    return dot;
  };

  /**
   * renderStatus shows the side to move, check, or the result (its
   * places are in the end-of-game panel).
   * extra(line) may add to the line of a game in progress (e.g. thinking)
   * and returns true when it wrote the line itself.
   */
  ui.renderStatus = (v, extra) => {
    document.body.dataset.status = v.status;
    document.body.dataset.ply = String(v.ply);
    document.body.dataset.toMove = v.status === 'playing' ? (v.toMove || []).join(',') : '';
    document.body.dataset.position = v.position;
    const st = $('status');
    st.replaceChildren();
    const line = document.createElement('p');
    line.className = 'status-line';
    if (v.status === 'over') {
      line.textContent = ui.resultText(v);
      line.dataset.key = ui.resultKey(v);
      if (v.result?.reason) line.dataset.reason = v.result.reason;
      st.append(line);
      return;
    }
    const s = (v.toMove || [])[0];
    if (!extra?.(line, s)) {
      line.append(ui.seatDot(s), document.createTextNode(s !== undefined ? t('ui.toMove', { seat: ui.seatName(s) }) : ''));
      if (s !== undefined) line.dataset.key = 'ui.toMove';
    }
    if ((v.inCheck || []).length) {
      const c = document.createElement('strong');
      c.className = 'check-flag';
      c.textContent = ` ${t('ui.check')}`;
      line.append(c);
    }
    st.append(line);
    for (const key of v.notices || []) {
      if (key === 'notice.check') continue;
      const p = document.createElement('p');
      p.className = 'status-notice';
      p.dataset.key = key;
      p.textContent = t(key);
      st.append(p);
    }
  };

  // ---- the move list, in the variant's text or its alternative

  // alt: the move list shows the Alt texts; the variant may ask for them
  // first in some languages (Description.altFirst), and the person's last
  // choice for the variant wins (ui.setupNotation).
  ui.alt = (desc.altFirst || []).includes(document.documentElement.lang.split('-')[0]);
  // onPick(ply) is called when a move of the list is chosen (navigation).
  ui.onPick = null;
  let lastHistory = [];
  let lastPending = [];
  /** moveLabel is a move's text in the list: resigning and leaving (a claimed win) in the page's words. */
  ui.moveLabel = (h) =>
    h.move === 'resign' ? t('ui.resigned') : h.move === 'abandon' ? t('ui.abandoned') : ui.alt && h.alt ? h.alt : h.text;
  /** renderHistory lists the moves played, then pending ones (sent, not yet confirmed). */
  ui.renderHistory = (history, pending = []) => {
    lastHistory = history;
    lastPending = pending;
    const ol = $('history');
    ol.replaceChildren();
    const hasAlt = history.some((h) => h.alt && h.alt !== h.text);
    $('notation-toggle').hidden = !hasAlt;
    let shown = 0; // the last move number written
    const item = (h, i, isPending) => {
      const li = document.createElement('li');
      li.dataset.move = h.move;
      li.dataset.ply = String(i + 1);
      // A number once per number: xiangqi numbers a move and its reply
      // together (PlayedMove.number), the others every move.
      const n = h.number || i + 1;
      const num = document.createElement('span');
      num.className = 'ply';
      num.textContent = n !== shown ? t('ui.moveNumber', { n }) : '';
      shown = n;
      const dot = ui.seatDot(h.seat);
      if (!desc.seats[h.seat]) dot.style.background = '#888';
      dot.title = ui.seatName(h.seat);
      const txt = document.createElement('span');
      txt.className = 'move-text';
      txt.textContent = ui.moveLabel(h);
      if (isPending) {
        li.className = 'pending';
        li.setAttribute('aria-label', `${ui.moveLabel(h)} (${t('room.pending')})`);
        li.append(num, dot, txt);
      } else if (ui.onPick) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'move-pick';
        // Named by its content (the visible number and move, then the
        // seat for screen readers), so the name holds what is seen.
        dot.setAttribute('aria-hidden', 'true');
        const who = document.createElement('span');
        who.className = 'sr-only';
        who.textContent = ` (${ui.seatName(h.seat)})`;
        b.append(num, dot, txt, who);
        b.addEventListener('click', () => ui.onPick(i + 1));
        li.append(b);
      } else {
        li.append(num, dot, txt);
      }
      ol.append(li);
    };
    history.forEach((h, i) => item(h, i, false));
    pending.forEach((h, i) => item(h, history.length + i, true));
    $('no-moves').hidden = history.length + pending.length > 0;
    ol.scrollTop = ol.scrollHeight;
    ui.afterHistory?.();
  };

  // ---- the end-of-game panel

  /**
   * renderResult shows (or hides) the panel for the View: who won and how,
   * Yonin's places, and you won or lost where the page plays a seat (mine).
   */
  ui.renderResult = (v, mine = []) => {
    const box = $('result');
    if (!box) return;
    const over = v.status === 'over';
    box.hidden = !over;
    if (!over) return;
    const r = v.result || {};
    // The head says who won (or a draw), the text how.
    const [head, ...why] = ui.resultText(v).split(' — ');
    $('result-h').textContent = head;
    $('result-h').dataset.key = ui.resultKey(v);
    $('result-text').textContent = why.join(' — ');
    $('result-text').hidden = !why.length;
    if (r.reason) $('result-text').dataset.reason = r.reason;
    const you = $('result-you');
    const won = (r.winners || []).some((s) => mine.includes(s));
    const decided = !r.draw && (r.winners || []).length > 0;
    you.hidden = !mine.length || !decided;
    if (!you.hidden) {
      you.textContent = won ? t('ui.result.youWon') : t('ui.result.youLost');
      you.dataset.won = String(won);
    }
    const ol = $('result-places');
    ol.replaceChildren();
    const places = r.places || [];
    ol.hidden = places.length <= 2;
    if (!ol.hidden) {
      const order = places.map((p, s) => [p, s]).sort((a, b) => a[0] - b[0]);
      for (const [p, s] of order) {
        const li = document.createElement('li');
        li.textContent = t('ui.place', { place: p, seat: ui.seatName(s) });
        li.style.borderColor = desc.seats[s].color;
        ol.append(li);
      }
    }
  };

  /** openExport opens the export panel and puts the focus on its button. */
  ui.openExport = () => {
    $('export-box').open = true;
    $('export-go').scrollIntoView({ block: 'nearest' });
    $('export-go').focus();
  };

  ui.setupNotation = (prefs) => {
    const key = `notation.${desc.id}`;
    const saved = prefs?.load()?.[key];
    if (saved === 'alt' || saved === 'text') ui.alt = saved === 'alt';
    const press = () => {
      for (const x of document.querySelectorAll('#notation-toggle button')) x.setAttribute('aria-pressed', String((x.dataset.alt === 'true') === ui.alt));
      document.body.dataset.notation = ui.alt ? 'alt' : 'text';
    };
    press();
    for (const b of document.querySelectorAll('#notation-toggle button')) {
      b.addEventListener('click', () => {
        ui.alt = b.dataset.alt === 'true';
        press();
        if (prefs) {
          const p = prefs.load() || {};
          p[key] = ui.alt ? 'alt' : 'text';
          prefs.save(p);
        }
        ui.renderHistory(lastHistory, lastPending);
      });
    }
    const textKey = t.has(`moves.text.${desc.id}`) ? `moves.text.${desc.id}` : 'moves.text';
    const altKey = t.has(`moves.alt.${desc.id}`) ? `moves.alt.${desc.id}` : 'moves.alt';
    document.querySelector('#notation-toggle [data-alt="false"]').textContent = t(textKey);
    document.querySelector('#notation-toggle [data-alt="true"]').textContent = t(altKey);
  };

  // ---- export (and the import formats, where the page has an import panel)

  /** setupExport fills the formats and wires the panel; exportText(format) resolves to the text. */
  ui.setupExport = (exportText) => {
    const label = (n) => (t.has(`notation.${n.id}`) ? t(`notation.${n.id}`) : n.name);
    for (const [id, only] of [['export-format', false], ['import-format', true]]) {
      const sel = $(id);
      if (!sel) continue;
      for (const n of desc.notations.filter((x) => !only || x.import)) {
        const o = document.createElement('option');
        o.value = n.id;
        o.textContent = label(n);
        sel.append(o);
      }
    }
    if ($('import-box')) $('import-box').hidden = !desc.notations.some((n) => n.import);
    $('export-go').addEventListener('click', async () => {
      try {
        $('export-text').value = await exportText($('export-format').value);
        $('export-text').hidden = false;
        $('export-copy').disabled = false;
        $('export-download').disabled = false;
      } catch (err) {
        ui.noticeError(err);
      }
    });
    $('export-copy').addEventListener('click', async () => {
      if (await ui.copy($('export-text').value)) {
        ui.announce(t('ui.copied'));
        $('export-status').textContent = t('ui.copied');
      } else {
        $('export-text').select();
        $('export-status').textContent = t('ui.copyFailed');
      }
    });
    $('export-download').addEventListener('click', () => {
      const n = desc.notations.find((x) => x.id === $('export-format').value);
      const blob = new Blob([$('export-text').value], { type: n.mediaType || 'text/plain' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${desc.id}-${new Date().toISOString().slice(0, 10)}${n.extension || '.txt'}`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    });
  };

  /** copy puts text on the clipboard and resolves to whether it could. */
  ui.copy = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      return false;
    }
  };

  return ui;
}

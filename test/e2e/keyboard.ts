// The keyboard check of our webviews (issue 44 point 4): a panel is usable without a mouse. Run by pressing the keys
// a user presses, in the webview's own frame (playwright's keyboard goes to the focused frame):
// - `keyboardAudit` walks the page with Tab from its start and fails when something a user can click (a link, a button,
//   a field, anything drawn with a hand or zoom cursor) is never reached, when a stop shows no focus (its outline,
//   shadow, border or background the same focused as before the walk), when the focus lands on something not drawn,
//   or when the page has more stops than a reader would tab through (a list of 600 frames must be one stop);
// - `tabTo` and `pressKey` drive a panel's own behaviour (Enter or Space on a row, Escape on what opened) and wait
//   for the state the key causes, never for time.
// test/e2e/a11yChecker.ts proves the audit fails on a planted clickable row without a tab stop and a planted focus
// with no visible mark.
import type { Frame, Page } from 'playwright-core';
import { waitFor } from '../helpers/waitFor';

/** Stops a page may have before its tab order is not one a reader would walk. */
// The most a panel of the e2e has is 11 (the findings); a long run of like controls is a roving group of one stop
// (dom.ts roveStop): the failures report had 85 (2 links an example item) before its table was one, and the findings
// one link per benchmark (84 in a real package).
export const MAX_STOPS = 40;

export interface Stop {
  /** Which element, in the order Tab reached it. */
  path: string;
  /** Its accessible name as a user hears it (aria-label, title, text), cut short. */
  name: string;
  /** Whether focus changed how it is drawn (outline, shadow, border, background, underline). */
  shown: boolean;
  /** Whether it has a box on the page. */
  drawn: boolean;
}

export interface KeyFinding {
  rule: 'unreachable' | 'focus-invisible' | 'focus-undrawn' | 'too-many-stops' | 'no-stop';
  what: string;
}

/**
 * Webview code, set up once per frame: the element path, a style signature (what focus may change, on the element and
 * inside its shadow root: a vscode-elements control draws its ring there), ids for elements, and the signatures of
 * every element before the walk.
 */
const SETUP = `(() => {
  // The key counter's listener again each time: the same function, so never twice (a page whose document was opened
  // again has lost it).
  if (window.__fpsKbd) return window.addEventListener('keyup', window.__fpsKbd.onKey, true);
  const path = (e) => {
    const parts = [];
    for (let n = e; n && n !== document.body && parts.length < 4; n = n.parentElement) {
      parts.unshift(n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + (n.classList.length ? '.' + [...n.classList].join('.') : ''));
    }
    return parts.join(' > ');
  };
  const look = (e) => {
    const s = getComputedStyle(e);
    return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.borderTopColor, s.borderBottomColor, s.borderLeftColor,
      s.backgroundColor, s.textDecorationLine, s.color].join('|');
  };
  const signature = (e) => {
    const parts = [look(e)];
    if (e.shadowRoot) for (const x of e.shadowRoot.querySelectorAll('*')) parts.push(look(x));
    return parts.join(';');
  };
  let n = 0;
  const ids = new WeakMap();
  const idOf = (e) => { if (!ids.has(e)) ids.set(e, ++n); return ids.get(e); };
  // A key has been handled in this frame once its keyup comes (to whatever has the focus after it): counted here.
  const onKey = () => window.__fpsKbd.keyups++;
  window.__fpsKbd = { path, signature, idOf, base: new WeakMap(), stops: [], keyups: 0, onKey };
  window.addEventListener('keyup', onKey, true);
})()`;

/** Webview code: forget the last walk, record every element's look unfocused, and put the focus before the first stop. */
const START = `(() => {
  const k = window.__fpsKbd;
  k.stops = [];
  // Tab goes on from where the focus was even after a blur (Chromium keeps that starting point): the body is focused
  // for a moment so the walk starts at the page's top.
  if (document.activeElement instanceof HTMLElement && document.activeElement !== document.body) document.activeElement.blur();
  document.body.tabIndex = -1;
  document.body.focus();
  document.body.removeAttribute('tabindex');
  window.getSelection()?.collapse(document.body, 0);
  for (const e of document.body.querySelectorAll('*')) k.base.set(e, k.signature(e));
  // The frame takes the focus with nothing in it focused: the next Tab goes to the page's first stop.
  window.focus();
  return document.hasFocus();
})()`;

/** Webview code: where the focus is now (null once it left the frame), recorded as a stop when `record`. */
const CURRENT = (record: boolean) => `(() => {
  const k = window.__fpsKbd;
  if (!document.hasFocus()) return null;
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return { id: 0 };
  const r = a.getBoundingClientRect();
  const stop = {
    id: k.idOf(a),
    path: k.path(a),
    name: (a.getAttribute('aria-label') || a.getAttribute('title') || a.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60),
    shown: k.base.has(a) ? k.signature(a) !== k.base.get(a) : true,
    drawn: r.width > 0 && r.height > 0,
  };
  if (${record}) k.stops.push(a);
  return stop;
})()`;

/**
 * Webview code: what a user can click or type into and the walk never focused: links, buttons, fields, summaries,
 * video controls, our vscode-elements controls, and anything drawn with a hand or zoom cursor (the outermost such box;
 * inside or around a stop counts as reached). Marks inside an SVG chart are left out: the chart's picks are also a
 * table's links (findings) or not picks at all.
 */
const UNREACHED = `(() => {
  const k = window.__fpsKbd;
  const sel = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea, summary, ' +
    '[role=button], [role=link], [role=tab], [role=checkbox], video[controls], vscode-button, vscode-textfield, vscode-collapsible';
  const hand = (e) => !!e && e instanceof Element && ['pointer', 'zoom-in', 'zoom-out'].includes(getComputedStyle(e).cursor);
  const drawn = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const out = [];
  for (const e of document.body.querySelectorAll('*')) {
    if (e.closest('svg') || !drawn(e)) continue;
    if (!(e.matches(sel) || (hand(e) && !hand(e.parentElement)))) continue;
    if (k.stops.some((s) => s === e || s.contains(e) || e.contains(s))) continue;
    // A control kept out of the tab order (tabindex -1) beside a stop of its own kind, or of its roving group (both
    // marked with the group's name in data-rove by dom.ts's roveStop: the inspector's frames, the AVTime queries, the
    // failures table's item links), is reached with the arrows from that stop: counted as reached. Beside: within 6
    // levels (a link in a table's cell and the stop in another row: a > span > td > tr > tbody > table).
    const kind = (x) => x.tagName + '.' + [...x.classList].sort().join('.');
    const group = (a, b) => kind(a) === kind(b) || (a.hasAttribute('data-rove') && a.getAttribute('data-rove') === b.getAttribute('data-rove'));
    const near = (a, b) => { let p = a; for (let i = 0; i < 6 && p; i++, p = p.parentElement) if (p.contains(b)) return true; return false; };
    if (e.getAttribute('tabindex') === '-1' && k.stops.some((s) => group(s, e) && near(e, s))) continue;
    const name = (e.getAttribute('aria-label') || e.getAttribute('title') || e.textContent || '').replace(/\\s+/g, ' ').trim();
    out.push(k.path(e) + ' "' + name.slice(0, 40) + '"');
  }
  return out.slice(0, 20);
})()`;

/** Puts the focus in `frame` with nothing in it focused (a DevTools evaluation: no page script runs). */
async function startIn(frame: Frame): Promise<void> {
  await frame.evaluate(SETUP);
  const focused = await frame.evaluate<boolean>(START);
  if (!focused) throw new Error('the webview did not take the focus (window.focus() in its frame)');
}

type Seen = { id: number; path?: string; name?: string; shown?: boolean; drawn?: boolean } | null;

/**
 * Presses `key` and waits until it has been handled: its keyup came to this frame (the focus moved inside it, or
 * stayed), or the focus left the frame, or the focus is inside a <video>'s or <audio>'s own controls. Those take Tab
 * in turn while the video stays the focused element, and Chromium (156) hands the page no key event at all while one
 * of them has the focus (measured: 6 Tabs inside a video's controls, no keydown or keyup on the window, capture
 * phase); playwright's press has then already come back from the renderer, which moved the focus. Returns where the
 * focus is then.
 */
async function press(page: Page, frame: Frame, key: string, from: Seen): Promise<Seen> {
  const before = await frame.evaluate<number>('window.__fpsKbd.keyups');
  await page.keyboard.press(key);
  const handled = `window.__fpsKbd.keyups > ${before} || !document.hasFocus() || !!document.activeElement?.matches('video[controls], audio[controls]')`;
  await waitFor(async () => frame.evaluate<boolean>(handled), 10_000, `${key} handled from ${from?.path ?? 'the page start'}`);
  return frame.evaluate<Seen>(CURRENT(false));
}

/** Presses Tab until the focus is on another element, or out of the frame (at most 20 presses inside one element). */
async function tab(page: Page, frame: Frame, from: Seen, record: boolean, key = 'Tab'): Promise<Seen> {
  for (let i = 0; i < 20; i++) {
    const now = await press(page, frame, key, from);
    if (now === null || now.id !== from?.id) {
      if (record && now) await frame.evaluate(CURRENT(true));
      return now;
    }
  }
  throw new Error(`the focus stays on ${from?.path} after 20 presses of ${key} (a trap)`);
}

/**
 * Tabs from the page's start until the focus leaves the webview (or comes round again), then checks what it saw:
 * every clickable reached, each stop's focus drawn and on something drawn, at most `maxStops` stops. Returns the
 * findings and the stops in order.
 */
export async function keyboardFindings(page: Page, frame: Frame, maxStops = MAX_STOPS): Promise<{ findings: KeyFinding[]; stops: Stop[] }> {
  await startIn(frame);
  const stops: Stop[] = [];
  const seen = new Set<number>();
  let at: Seen = { id: 0 };
  for (let i = 0; i <= maxStops; i++) {
    at = await tab(page, frame, at, true);
    if (at === null || at.id === 0 || seen.has(at.id)) break;
    seen.add(at.id);
    stops.push({ path: at.path!, name: at.name!, shown: at.shown!, drawn: at.drawn! });
  }
  const findings: KeyFinding[] = [];
  if (!stops.length) findings.push({ rule: 'no-stop', what: 'Tab reached nothing in the webview' });
  if (stops.length > maxStops) findings.push({ rule: 'too-many-stops', what: `more than ${maxStops} tab stops (the first: ${stops[0].path})` });
  for (const s of stops) {
    if (!s.shown) findings.push({ rule: 'focus-invisible', what: `${s.path} "${s.name}" looks the same focused` });
    if (!s.drawn) findings.push({ rule: 'focus-undrawn', what: `the focus went to ${s.path} "${s.name}", which has no box` });
  }
  for (const u of await frame.evaluate<string[]>(UNREACHED)) findings.push({ rule: 'unreachable', what: `${u}: clickable, never reached by Tab` });
  // Hand the focus back to the workbench as it was: the walk leaves it wherever Tab went last.
  await frame.evaluate('document.activeElement instanceof HTMLElement && document.activeElement.blur()');
  return { findings, stops };
}

/** The keyboard audit of a webview as it is now: throws with every finding; returns what it walked. */
export async function keyboardAudit(page: Page, frame: Frame, label: string, maxStops = MAX_STOPS): Promise<string> {
  const { findings, stops } = await keyboardFindings(page, frame, maxStops);
  if (findings.length) {
    const said = `${label}: ${findings.length} keyboard problem(s):\n${findings.map((f) => `  ${f.rule}: ${f.what}`).join('\n')}`;
    if (process.env.A11Y_REPORT_ONLY) return `NOT PASSED (A11Y_REPORT_ONLY) ${said}`;
    throw new Error(said);
  }
  const names = stops.slice(0, 6).map((s) => `"${s.name}"`);
  return `${label}: Tab reached every clickable in ${stops.length} stop(s) (${names.join(', ')}${stops.length > 6 ? ', …' : ''}), each drawn focused`;
}

/**
 * Tabs (from the page's start) until the focused element matches `selector`, at most `max` presses; returns how many
 * it took. `shift`: Shift+Tab from where the focus is instead.
 */
export async function tabTo(page: Page, frame: Frame, selector: string, opts: { max?: number; fromStart?: boolean; shift?: boolean } = {}): Promise<number> {
  if (opts.fromStart !== false) await startIn(frame);
  else await frame.evaluate(SETUP);
  const isThere = `(() => { const a = document.activeElement; return !!a && a !== document.body && a.matches(${JSON.stringify(selector)}); })()`;
  let at: Seen = await frame.evaluate<Seen>(CURRENT(false));
  for (let i = 1; i <= (opts.max ?? 60); i++) {
    at = await tab(page, frame, at, false, opts.shift ? 'Shift+Tab' : 'Tab');
    if (at === null) throw new Error(`Tab left the webview before reaching ${selector}`);
    if (await frame.evaluate<boolean>(isThere)) return i;
  }
  throw new Error(`${opts.max ?? 60} Tab presses never reached ${selector} (last: ${at?.path})`);
}

/** Presses `key` (the focus is in the webview) and waits until `state` (webview code, an expression) is truthy. */
export async function pressKey(page: Page, frame: Frame, key: string, what: string, state: string, timeoutMs = 20_000): Promise<void> {
  await frame.evaluate(SETUP);
  await press(page, frame, key, await frame.evaluate<Seen>(CURRENT(false)));
  await waitFor(async () => frame.evaluate<unknown>(state), timeoutMs, `${what} after ${key}`, { pollMs: 100 });
}

/** What the focused element is (its path), for a log line or an assertion. */
export async function focusedPath(frame: Frame): Promise<string> {
  await frame.evaluate(SETUP);
  return (await frame.evaluate<Seen>(CURRENT(false)))?.path ?? '(outside the webview)';
}

/**
 * Space on a report's Refresh (the vscode-button in its header, reached with Tab): `report` drawn again (#app's
 * data-draws changes) with the focus on the new Refresh.
 */
export async function refreshWithSpace(page: Page, frame: Frame, report: string): Promise<void> {
  await tabTo(page, frame, 'header vscode-button');
  const draws = await frame.evaluate<string>("document.getElementById('app').dataset.draws");
  await pressKey(
    page,
    frame,
    'Space',
    `${report} drawn again, the focus on the new Refresh`,
    `document.getElementById('app').dataset.draws !== ${JSON.stringify(draws)} && document.activeElement?.matches('header vscode-button')`,
  );
}

// Building DOM from data without ever parsing data as HTML: every string becomes a text node.
// (A question holding `<img src=x onerror=…>` shows as those characters.)

type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, string | number | boolean | undefined>,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function el(tag: string, attrs?: Record<string, string | number | boolean | undefined>, ...children: Child[]): HTMLElement;
export function el(tag: string, attrs: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    // Attribute names are ours (literals in this code); values are set as data, never as markup.
    node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, children);
  return node;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  append(node, children);
  return node;
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** A table from rows; `cell` turns one value into a child (text by default). */
export function table<R>(columns: { title: string; value: (r: R) => Child; numeric?: boolean }[], rows: R[], caption?: string): HTMLTableElement {
  const t = el('table', { class: 'data' });
  if (caption) t.appendChild(el('caption', {}, caption)); // not a run type id: HTML's table caption
  t.appendChild(el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', class: c.numeric ? 'num' : undefined }, c.title)))));
  const body = el('tbody');
  for (const r of rows) body.appendChild(el('tr', {}, ...columns.map((c) => el('td', { class: c.numeric ? 'num' : undefined }, c.value(r)))));
  t.appendChild(body);
  return t;
}

/**
 * A box that scrolls sideways when what it holds is wider than the panel (a table of many columns in a narrow editor),
 * instead of the page growing wider than its view. Named by `label`; a tab stop while it scrolls (scrollStop).
 */
export function scroller(child: Node, label: string): HTMLElement {
  const box = el('div', { class: 'scroll', role: 'region', 'aria-label': label }, child);
  scrollStop(box, child instanceof Element ? child : undefined);
  return box;
}

/**
 * Makes `box` (which scrolls sideways in CSS) a tab stop while what it holds is wider than it, so a keyboard user can
 * scroll it with the arrows; while all it holds fits, it is none (no stop that does nothing). `inner`: what it holds,
 * watched too (it may grow without the box changing size).
 */
export function scrollStop(box: HTMLElement, inner?: Element): void {
  const stop = () => {
    if (box.scrollWidth > box.clientWidth + 1) box.tabIndex = 0;
    else box.removeAttribute('tabindex');
  };
  const watch = new ResizeObserver(stop);
  watch.observe(box);
  if (inner) watch.observe(inner);
}

/**
 * A long run of like controls in `container` (a list of 133 queries, a condition's 582 frames) as one tab stop: the
 * control last moved to, else the first, is the stop (call again after drawing more); the arrows, Home and End move
 * between them (roveKeys). A keyboard user tabs past the run in one press, not a hundred.
 */
export function roveStop(container: HTMLElement, selector: string): void {
  const all = [...container.querySelectorAll<HTMLElement>(selector)];
  const stop = all.find((x) => x.tabIndex === 0 && x.hasAttribute('data-rove')) ?? all[0];
  for (const x of all) {
    x.setAttribute('data-rove', selector); // the group's name (test/e2e/keyboard.ts counts the group reached from its stop)
    x.tabIndex = x === stop ? 0 : -1;
  }
}

/** The arrows (Down or Right: the next; Up or Left: the one before), Home and End among `container`'s `selector`. */
export function roveKeys(container: HTMLElement, selector: string): void {
  container.addEventListener('keydown', (e) => {
    const all = [...container.querySelectorAll<HTMLElement>(selector)];
    const at = all.indexOf(document.activeElement as HTMLElement);
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[e.key];
    if (at < 0 || to === undefined) return;
    e.preventDefault();
    const next = all[Math.max(0, Math.min(all.length - 1, to))];
    for (const x of all) x.tabIndex = x === next ? 0 : -1;
    next.focus();
  });
}

export function fmt(n: unknown, digits = 2): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return n === null || n === undefined ? '—' : String(n);
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(digits);
}

/** Any JSON value as nested tables and lists (the fallback for fields we do not lay out by hand). */
export function renderValue(v: unknown, depth = 0): Node {
  if (v === null || v === undefined) return document.createTextNode('—');
  if (typeof v !== 'object') return document.createTextNode(typeof v === 'number' ? fmt(v) : String(v));
  if (Array.isArray(v)) {
    if (v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
      const keys = [...new Set(v.flatMap((x) => Object.keys(x as object)))];
      return table(
        keys.map((k) => ({ title: k, value: (r: Record<string, unknown>) => renderValue(r[k], depth + 1) })),
        v as Record<string, unknown>[],
      );
    }
    const ul = el('ul');
    for (const x of v) ul.appendChild(el('li', {}, renderValue(x, depth + 1)));
    return ul;
  }
  const dl = el('dl', { class: 'kv' });
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    dl.appendChild(el('dt', {}, k));
    dl.appendChild(el('dd', {}, renderValue(x, depth + 1)));
  }
  return dl;
}

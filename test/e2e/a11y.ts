// The accessibility and layout check of our webviews (issue 44): axe-core run inside a webview's own document, and an
// overflow check of every element against its box and the viewport. axe's source is evaluated in the frame through
// playwright (the webviews' CSP allows no script of ours, but a DevTools evaluation is not a page script); the page is
// only read, never changed. What fails: an axe violation of impact serious or critical (contrast, names, roles, ...);
// an element whose content spills out of its box where the box does not scroll or clip it (a card, a cell, a chart),
// or the page wider than the viewport. test/e2e/a11yChecker.ts proves the check fails on a planted low-contrast
// style and a planted overflow.
import * as fs from 'node:fs';
import type { Frame, Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The impacts that fail the check (axe's serious and critical). */
const FAILING = ['serious', 'critical'];

export interface Finding {
  kind: 'axe' | 'overflow';
  /** axe's rule id, or "overflow" / "viewport". */
  rule: string;
  impact: string;
  what: string;
  /** Where: CSS selectors (axe's targets) or a path of the element. */
  where: string[];
}

/** axe's serious and critical violations in the frame's document (WCAG 2.x A and AA rules and the best practices). */
export async function axeFindings(frame: Frame): Promise<Finding[]> {
  const loaded = await frame.evaluate<boolean>('typeof window.axe === "object"');
  if (!loaded) await frame.evaluate(AXE_SOURCE);
  type Violation = { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] };
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
  const violations = await frame.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'], runOnly: { type: 'tag', values: ${JSON.stringify(tags)} } }).then((r) =>
      r.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
      })))`,
  );
  return violations
    .filter((v) => FAILING.includes(v.impact ?? ''))
    .map((v) => ({
      kind: 'axe' as const,
      rule: v.id,
      impact: v.impact!,
      what: `${v.help}${v.nodes[0]?.failureSummary ? ` (${v.nodes[0].failureSummary.replace(/\s+/g, ' ').slice(0, 200)})` : ''}`,
      where: v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)),
    }));
}

/**
 * Webview code: each element whose content spills out of it (scrollWidth/scrollHeight past its box, 1 px allowed)
 * where it neither scrolls nor clips (overflow visible), and each element reaching past the viewport's right edge
 * outside any box that scrolls it; SVG's insides are vega's (the chart's box is checked). Inline boxes have no size
 * of their own: their block is checked.
 */
const OVERFLOW = `(() => {
  const out = [];
  const path = (e) => {
    const parts = [];
    for (let n = e; n && n !== document.body && parts.length < 4; n = n.parentElement) {
      parts.unshift(n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + (n.classList.length ? '.' + [...n.classList].join('.') : ''));
    }
    return parts.join(' > ');
  };
  const scrolls = (s) => s !== 'visible';
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push({ rule: 'viewport', what: 'the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + vw + ' px viewport', where: [] });
  }
  for (const e of document.body.querySelectorAll('*')) {
    if (!(e instanceof HTMLElement) || e.closest('svg')) continue;
    const cs = getComputedStyle(e);
    if (cs.display === 'none' || cs.display === 'inline' || cs.display === 'contents' || cs.visibility === 'hidden') continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const overX = !scrolls(cs.overflowX) && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
    const overY = !scrolls(cs.overflowY) && e.scrollHeight > e.clientHeight + 1 && e.clientHeight > 0 && cs.height !== 'auto';
    if ((overX || overY) && !['HTML', 'BODY'].includes(e.tagName)) {
      // Reported once, at the innermost box that spills: a parent spilling only because of this child is not repeated.
      const what = overX
        ? 'content ' + e.scrollWidth + ' px wide in a ' + e.clientWidth + ' px box'
        : 'content ' + e.scrollHeight + ' px high in a ' + e.clientHeight + ' px box';
      out.push({ rule: 'overflow', what, where: [path(e)] });
    }
    if (r.right > vw + 1) {
      let clipped = false;
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        const ps = getComputedStyle(p);
        if (scrolls(ps.overflowX) && p.getBoundingClientRect().right <= vw + 1) { clipped = true; break; }
      }
      if (!clipped) out.push({ rule: 'viewport', what: 'reaches ' + Math.round(r.right) + ' px in a ' + vw + ' px viewport', where: [path(e)] });
    }
  }
  // A parent listed because its child spills is the same defect: keep the innermost.
  const inner = (o) => out.some((x) => x !== o && x.rule === o.rule && x.where[0] && o.where[0] && x.where[0].startsWith(o.where[0] + ' > '));
  return out.filter((o) => !inner(o)).slice(0, 20);
})()`;

/** Elements spilling out of their box, or past the viewport (see OVERFLOW). */
export async function overflowFindings(frame: Frame): Promise<Finding[]> {
  const found = await frame.evaluate<{ rule: string; what: string; where: string[] }[]>(OVERFLOW);
  return found.map((f) => ({ kind: 'overflow' as const, impact: 'layout', ...f }));
}

/** The viewport sizes every panel must lay out in. */
export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;

/** Each finding on a line, for an error message. */
export function describe(findings: readonly Finding[]): string {
  return findings.map((f) => `  ${f.kind} ${f.rule} (${f.impact}): ${f.what}${f.where.length ? ` at ${f.where.join(', ')}` : ''}`).join('\n');
}

/**
 * The whole check of a webview as it is now: axe in the page's size, then the overflow check at each of VIEWPORTS
 * (the page resized, the frame's layout awaited), the page's size put back. `label` names the panel and theme.
 * Throws with every finding; returns what it checked.
 */
export async function auditWebview(page: Page, frame: Frame, label: string): Promise<string> {
  const findings: Finding[] = [...(await axeFindings(frame))];
  const size = page.viewportSize();
  const widths: string[] = [];
  try {
    for (const vp of VIEWPORTS) {
      const before = await frameWidth(frame);
      await page.setViewportSize(vp);
      await waitForLayout(frame, before);
      widths.push(`${vp.width}×${vp.height} (the webview ${await frameWidth(frame)} px wide)`);
      for (const f of await overflowFindings(frame)) findings.push({ ...f, what: `${vp.width}×${vp.height}: ${f.what}` });
    }
  } finally {
    if (size) {
      const before = await frameWidth(frame);
      await page.setViewportSize(size);
      await waitForLayout(frame, before);
    }
  }
  if (findings.length) {
    const said = `${label}: ${findings.length} accessibility or layout problem(s):\n${describe(findings)}`;
    // A developer's survey of every panel in one run (never set in a test run: every finding fails it).
    if (process.env.A11Y_REPORT_ONLY) return `NOT PASSED (A11Y_REPORT_ONLY) ${said}`;
    throw new Error(said);
  }
  return `${label}: axe (serious, critical) and overflow at ${widths.join(', ')}: none`;
}

const frameWidth = (frame: Frame) =>
  frame.evaluate<number>('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(document.documentElement.clientWidth))))');

/**
 * The webview laid out again after the page was resized: its width moved from `before` (the workbench lays the
 * editor out again, then the frame reflows) and then held for two reads, each after two animation frames. Bounded: a
 * webview whose width cannot change (already at its narrowest) is read as it is after the bound.
 */
async function waitForLayout(frame: Frame, before: number): Promise<void> {
  let last = before;
  let same = 0;
  for (let i = 0; i < 40 && same < 2; i++) {
    const w = await frameWidth(frame);
    same = w === last && w !== before ? same + 1 : 0;
    last = w;
  }
}

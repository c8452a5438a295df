// The walkthroughs' images (package.json contributes.walkthroughs, issue 36 point 3) as VS Code shows them. An SVG
// step is inlined into a webview whose CSP is `style-src 'nonce-…'` (VS Code 1.100
// src/vs/workbench/contrib/welcomeGettingStarted/browser/gettingStartedDetailsRenderer.ts, renderSVG): a <style>
// element or a style="" attribute of ours is dropped there, and every shape draws black on black. So colors and fonts
// are presentation attributes (as VS Code's own walkthrough SVGs do), in theme variables only.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
type Media = { svg?: string; image?: string; altText?: string };
const walkthroughs = (
  JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
    contributes: { walkthroughs: { id: string; steps: { id: string; media: Media }[] }[] };
  }
).contributes.walkthroughs;
const steps = walkthroughs.flatMap((w) => w.steps.map((s) => ({ name: `${w.id}#${s.id}`, media: s.media })));

/** The smallest font-size of an SVG's text (its own units; the walkthrough shows it at about 1:1). */
const MIN_FONT = 12;

/** Why an SVG would not draw in the walkthrough's webview, or in the theme's colors; [] when it does. */
export function svgProblems(svg: string): string[] {
  const problems: string[] = [];
  if (/<style[\s>]/i.test(svg)) problems.push('a <style> element (dropped by the webview CSP)');
  if (/\sstyle\s*=/i.test(svg)) problems.push('a style="" attribute (dropped by the webview CSP)');
  if (!/<svg[^>]*\brole="img"[^>]*\baria-label="[^"]+"/.test(svg)) problems.push('no role="img" with an aria-label on <svg>');
  for (const m of svg.matchAll(/\s(fill|stroke)="([^"]*)"/g)) {
    if (m[2] !== 'none' && !/^var\(--vscode-[\w-]+\)$/.test(m[2])) problems.push(`${m[1]}="${m[2]}" (not a theme variable)`);
  }
  if (!/\sfill="var\(--vscode-/.test(svg)) problems.push('no fill in a theme variable (the text would draw black)');
  // Readable where the step shows it (the walkthrough draws the SVG at about its width; its e2e measures the text drawn).
  for (const m of svg.matchAll(/<text\b[^>]*\sfont-size="([\d.]+)"/g)) {
    if (Number(m[1]) < MIN_FONT) problems.push(`font-size="${m[1]}" (under ${MIN_FONT})`);
  }
  if (/<text\b(?![^>]*\sfont-size=)/.test(svg)) problems.push('a <text> without a font-size');
  return problems;
}

describe('walkthrough media', () => {
  it('lists both walkthroughs with six steps each', () => {
    assert.deepEqual(
      walkthroughs.map((w) => [w.id, w.steps.length]),
      [
        ['firstSweep', 6],
        ['avtimeDataAndBench', 6],
      ],
    );
  });

  it('every step shows an SVG drawn at its size, no picture of a panel (a window shrunk into a step drew its text 6 px high)', () => {
    assert.deepEqual(
      steps.filter((s) => !s.media.svg).map((s) => `${s.name}: ${s.media.image}`),
      [],
    );
  });

  for (const { name, media } of steps) {
    it(`${name}: its ${media.svg ? 'SVG draws in the webview, in theme variables only' : 'image exists'}`, () => {
      const file = media.svg ?? media.image;
      assert.ok(file, `${name} has no media`);
      assert.ok(fs.existsSync(path.join(REPO, file)), `${file} is missing`);
      if (media.svg) assert.deepEqual(svgProblems(fs.readFileSync(path.join(REPO, media.svg), 'utf8')), [], media.svg);
      else assert.ok(media.altText, `${name}: an image needs its altText`);
    });
  }

  it('refuses what the old SVGs did: a <style> element with classes', () => {
    const old = `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="x"><style>.t { fill: var(--vscode-foreground); }</style><text class="t">x</text></svg>`;
    assert.deepEqual(svgProblems(old), [
      'a <style> element (dropped by the webview CSP)',
      'no fill in a theme variable (the text would draw black)',
      'a <text> without a font-size',
    ]);
    // Text too small to read where the step shows it.
    assert.deepEqual(svgProblems('<svg role="img" aria-label="x"><text fill="var(--vscode-foreground)" font-size="6">x</text></svg>'), [
      'font-size="6" (under 12)',
    ]);
    assert.deepEqual(svgProblems('<svg role="img" aria-label="x"><rect fill="#fff"/></svg>'), [
      'fill="#fff" (not a theme variable)',
      'no fill in a theme variable (the text would draw black)',
    ]);
  });
});

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

/** The smallest font-size of an SVG's text, in its own units. */
const MIN_FONT = 12;
/** The smallest a text may be drawn, in CSS px (issue 44: no text under 11 px in an image we ship). */
const MIN_PX = 11;
/** The narrowest VS Code draws a step's SVG: 80 % of its webview, at least 350 px (renderSVG's style: min-width 350px,
 * max-width 530px). An SVG w units wide is drawn at 350 / w or more: 12-unit text needs w ≤ 381. */
const MIN_DRAWN_WIDTH = 350;
/** The lowest it is drawn at 1280×800: an editor under 950 px wide stacks the steps over the media, which gets 30 % of
 * the editor's height (gettingStarted.css, width-semi-constrained: minmax(30%, 1fr)), 212 px measured. An SVG h units
 * high is drawn at 212 / h or less: 12-unit text needs h ≤ 231. */
const MIN_DRAWN_HEIGHT = 212;
/** A monospace font's advance per character, in em (Droid Sans Mono, DejaVu Sans Mono: 0.6). */
const MONO_ADVANCE = 0.6;

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
  // Drawn at the narrowest, each text at MIN_PX or more; a monospace line inside the image.
  const [width, height] = (/<svg\b[^>]*\sviewBox="[\d.]+ [\d.]+ ([\d.]+) ([\d.]+)"/.exec(svg) ?? []).slice(1).map(Number);
  if (!width) problems.push('no viewBox on <svg>');
  const scale = Math.min(MIN_DRAWN_WIDTH / width, MIN_DRAWN_HEIGHT / height);
  for (const m of svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)) {
    const size = Number(/\sfont-size="([\d.]+)"/.exec(m[1])?.[1]);
    const x = Number(/\sx="([\d.]+)"/.exec(m[1])?.[1] ?? 0);
    const drawn = size * scale;
    const step = `${MIN_DRAWN_WIDTH}×${MIN_DRAWN_HEIGHT} px step`;
    if (drawn < MIN_PX) problems.push(`"${m[2].trim()}" drawn at ${drawn.toFixed(1)} px in a ${step} (under ${MIN_PX})`);
    const chars = [...m[2].replace(/&[#\w]+;/g, '_')].length;
    if (/font-family="[^"]*monospace/.test(m[1]) && x + chars * size * MONO_ADVANCE > width)
      problems.push(`"${m[2].trim()}" runs past the image (${chars} characters at ${size} from x=${x} in ${width})`);
  }
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
      'no viewBox on <svg>',
    ]);
    // Text too small to read where the step shows it.
    const svg = (w: number, text: string) => `<svg role="img" aria-label="x" viewBox="0 0 ${w} 100">${text}</svg>`;
    const mono = 'font-family="var(--vscode-editor-font-family, monospace)"';
    assert.deepEqual(svgProblems(svg(360, '<text fill="var(--vscode-foreground)" font-size="6">x</text>')), [
      'font-size="6" (under 12)',
      '"x" drawn at 5.8 px in a 350×212 px step (under 11)',
    ]);
    // The old images: 13-unit text on a 640-unit viewBox drew at 7.1 px (6.7 measured at 1400×900).
    assert.deepEqual(svgProblems(svg(640, `<text fill="var(--vscode-foreground)" ${mono} font-size="13">x</text>`)), [
      '"x" drawn at 7.1 px in a 350×212 px step (under 11)',
    ]);
    // Too tall for the stacked layout: 12-unit text in a 300-unit-high image draws at 8.5 px.
    assert.deepEqual(svgProblems(svg(360, '<text fill="var(--vscode-foreground)" font-size="12">x</text>').replace('0 0 360 100', '0 0 360 300')), [
      '"x" drawn at 8.5 px in a 350×212 px step (under 11)',
    ]);
    // 41 monospace characters at 13 from x=16 end at 335.8: past a 330-unit image, inside a 360-unit one.
    const line = `<text x="16" fill="var(--vscode-foreground)" ${mono} font-size="13">${'m'.repeat(41)}</text>`;
    assert.deepEqual(svgProblems(svg(360, line)), []);
    assert.deepEqual(svgProblems(svg(330, line)), [`"${'m'.repeat(41)}" runs past the image (41 characters at 13 from x=16 in 330)`]);
    assert.deepEqual(svgProblems('<svg role="img" aria-label="x"><rect fill="#fff"/></svg>'), [
      'fill="#fff" (not a theme variable)',
      'no fill in a theme variable (the text would draw black)',
      'no viewBox on <svg>',
    ]);
  });
});

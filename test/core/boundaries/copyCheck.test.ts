// The copy check of product code (.jscpd.json, `npm run lint:copies`, part of `npm run lint`), through the door a
// contributor takes: files planted into a throwaway copy of the tree, then `npm run lint:copies` there. A copy of 8
// or more lines that is not boilerplate (a function in two files of src/, a stylesheet's rules in two of media/src/)
// fails it, naming both places; a shorter copy, or 8 lines too thin to be more than boilerplate, passes. Where the
// `duplicates` command is installed, it finds the planted function too (a second reader of the same tree).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeLintCopy, REPO, type LintCopy } from '../../helpers/lintCopy';

/** A function of 10 lines with real work in it: the kind of copy the check is for. */
const FUNCTION = `export function plantedWeightedMedian(values: number[], weights: number[]): number {
  const order = values.map((v, i) => [v, weights[i] ?? 0] as const).sort((a, b) => a[0] - b[0]);
  const total = order.reduce((s, [, w]) => s + w, 0);
  let seen = 0;
  for (const [v, w] of order) {
    seen += w;
    if (seen * 2 >= total) return v;
  }
  return Number.NaN;
}
`;

/** Eight rules of a stylesheet, as the caption viewer's stylesheet repeated report.css's base rules. */
const RULES = `.planted-body {
  color: var(--vscode-foreground);
  background: var(--vscode-editor-background);
  font-family: var(--vscode-font-family);
  padding: 0 16px 24px;
}
.planted-muted {
  color: var(--vscode-descriptionForeground);
}
.planted-error {
  color: var(--vscode-errorForeground);
}
`;

/** Eight lines of an option list: too thin (few tokens a line) to be more than boilerplate. */
const THIN = Array.from({ length: 8 }, (_, i) => `  k${i}: 1,`).join('\n');

describe('copy check (npm run lint:copies)', function () {
  this.timeout(300_000);
  let copy: LintCopy | undefined;
  afterEach(() => copy?.remove());

  it('the tree passes as it is; the threshold is 8 lines, in .jscpd.json', () => {
    const config = JSON.parse(fs.readFileSync(path.join(REPO, '.jscpd.json'), 'utf8')) as { minLines: number; path: string[] };
    assert.equal(config.minLines, 8);
    assert.deepEqual(config.path, ['src', 'media/src']);
    assert.match(JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts.lint, /npm run lint:deps && npm run lint:copies/);
    copy = makeLintCopy();
    const { status, output } = copy.npmRun('lint:copies');
    assert.equal(status, 0, output);
  });

  it('fails on a planted copy of a function and of stylesheet rules, naming both places', () => {
    copy = makeLintCopy();
    copy.plant('src/core/runner/plantedCopyA.ts', `// one\n${FUNCTION}`);
    copy.plant('src/core/serving/plantedCopyB.ts', `// another\n\n${FUNCTION}`);
    copy.plant('media/src/plantedA.css', RULES);
    copy.plant('media/src/protocols/plantedB.css', `/* again */\n${RULES}`);
    const { status, output } = copy.npmRun('lint:copies');
    assert.notEqual(status, 0, output);
    assert.match(
      output,
      /core\/runner\/plantedCopyA\.ts[^\n]*\n\s*core\/serving\/plantedCopyB\.ts|core\/serving\/plantedCopyB\.ts[^\n]*\n\s*core\/runner\/plantedCopyA\.ts/,
    );
    assert.match(output, /plantedA\.css[^\n]*\n\s*[^\n]*plantedB\.css|plantedB\.css[^\n]*\n\s*[^\n]*plantedA\.css/);

    // The cross-check: `duplicates` (where installed) reads the same copy and lists the planted pair too.
    const dup = spawnSync('duplicates', ['--repo', copy.dir, '--min-lines', '8', '--most', '200', '--seconds', '120'], { encoding: 'utf8' });
    if (dup.error) return; // not installed on this machine
    assert.match(dup.stdout, /plantedCopy[AB]\.ts:\d+-\d+ ~ [^\n]*plantedCopy[AB]\.ts/, dup.stdout);
  });

  it('lets a copy of 7 lines, or 8 lines of boilerplate, pass', () => {
    copy = makeLintCopy();
    // The first 7 lines of the function alike, the 8th on differs.
    const seven = FUNCTION.split('\n').slice(0, 7).join('\n');
    copy.plant('src/core/runner/plantedShortA.ts', `${seven}\n    console.log(v);\n  }\n  return 0;\n}\n`);
    copy.plant('src/core/serving/plantedShortB.ts', `// another\n${seven}\n    seen -= w;\n  }\n  return 1;\n}\n`);
    copy.plant('src/core/runner/plantedThinA.ts', `export const a = {\n${THIN}\n};\n`);
    copy.plant('src/core/serving/plantedThinB.ts', `export const b = {\n${THIN}\n};\n`);
    const { status, output } = copy.npmRun('lint:copies');
    assert.equal(status, 0, output);
  });
});

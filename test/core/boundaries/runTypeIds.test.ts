// Issue 24: a run type lives in its folders and is named only where it registers. No file outside a run type's
// folders — `protocols/<id>/` under src/core, src/extension or media/src — names a run type's id as a string, except
// the registries, where each run type has its one entry. The ids are the registry's, so a new run type is covered
// the day it registers. The stand-ins (test doubles; their roles are model roles) are not product.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { PROTOCOLS } from '../../../src/core/protocols/registry';

const REPO = path.resolve(__dirname, '../../..');
const SCANNED = ['src', 'media/src'];
const REGISTRIES = new Set([
  'src/core/protocols/registry.ts',
  'src/worker/jobRunners.ts',
  'src/cli/runTypeVerbs.ts',
  'src/extension/protocols/registry.ts',
  'src/extension/protocols/reportContracts.ts',
  'media/src/protocols/registry.ts',
]);
const NOT_PRODUCT = ['src/standins/'];

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? filesUnder(rel) : /\.(ts|js|mjs)$/.test(e.name) ? [rel] : [];
  });
}

/** The run type whose folder `file` is in, or null. */
function ownerOf(file: string, ids: readonly string[]): string | null {
  const m = /^(?:src\/core|src\/extension|media\/src)\/protocols\/([^/]+)\//.exec(file);
  return m && ids.includes(m[1]) ? m[1] : null;
}

/** Each line of `text` that names `id` as a string literal (quotes or backticks) or as an object key. */
export function namingLines(text: string, id: string): number[] {
  const literal = new RegExp(`(['"\`])${id}\\1|^\\s*${id}\\s*:|[{,]\\s*${id}\\s*:`);
  const code = (line: string) => (/^\s*(\*|\/\*)/.test(line) ? '' : line.replace(/\/\/.*$/, '')); // comments may name a run type
  // A word that is a run type's id but means something else here says so on its line.
  return text.split('\n').flatMap((line, i) => (literal.test(code(line)) && !NOT_AN_ID.test(line) ? [i + 1] : []));
}

/** The mark of a line whose literal is another thing of the same name (HTML's <caption>). */
const NOT_AN_ID = /\/\/ not a run type id:/;

/**
 * Each line of `text` that names `id` as a run type: asks the registry for it, compares a protocol or its id to it,
 * or gives it as a protocol. Inside another run type's folder only these count: a run type's id may be an ordinary
 * word of another's data ('caption' is a field of AVTime's events), which the eslint fence already keeps from
 * becoming an import.
 */
export function runTypeLines(text: string, id: string): number[] {
  const q = `(['"\`])${id}\\1`;
  const asRunType = new RegExp(
    [
      `PROTOCOLS\\.get\\(\\s*${q}`,
      `\\b(?:protocol|protocolId|runType)\\b(?:\\.id)?\\s*(?:===|!==|==|!=|:)\\s*${q}`,
      `\\.id\\s*(?:===|!==)\\s*${q}`,
      `--protocol['"\`]?,?\\s*${q}`,
    ].join('|'),
  );
  const code = (line: string) => (/^\s*(\*|\/\*)/.test(line) ? '' : line.replace(/\/\/.*$/, ''));
  return text.split('\n').flatMap((line, i) => (asRunType.test(code(line)) ? [i + 1] : []));
}

describe('run-type ids outside their folders (issue 24)', () => {
  it('finds the names it is meant to find, and not words that contain them', () => {
    assert.deepEqual(namingLines('const a = \'fp\';\nconst b = "avtime";\n`avtime`\n{ fp: 1 }\n  avtime: x,', 'fp'), [1, 4]);
    assert.deepEqual(namingLines('const a = \'fp\';\nconst b = "avtime";\n`avtime`\n{ fp: 1 }\n  avtime: x,', 'avtime'), [2, 3, 5]);
    assert.deepEqual(namingLines("'fp-only'\nfpProtocol\n// 'fp' in a comment\n  /** `fp`, in a doc comment */\nconst avtimeX = 'avtimes';", 'fp'), []);
    const otherFolder =
      "PROTOCOLS.get('tally')\n{ caption: 'x' }\nif (p.protocol === 'tally') x();\nconst w = 'tally';\n" +
      "spawn(['--protocol', 'tally'])\nif (p.id !== \"tally\") y();";
    assert.deepEqual(runTypeLines(otherFolder, 'tally'), [1, 3, 5, 6]);
    assert.deepEqual(runTypeLines(otherFolder, 'caption'), []);
    assert.deepEqual(namingLines("el('caption', {}) // not a run type id: HTML's element", 'caption'), []);
  });

  it('no product file outside a run type folder or a registry names a run type id', () => {
    const ids = PROTOCOLS.ids;
    const found: string[] = [];
    for (const file of SCANNED.flatMap(filesUnder)) {
      if (REGISTRIES.has(file) || NOT_PRODUCT.some((p) => file.startsWith(p))) continue;
      const owner = ownerOf(file, ids);
      const text = readFileSync(path.join(REPO, file), 'utf8');
      // A file of a run type's folder (under src/core, src/extension, media/src) may use another's id as a word of its
      // own data, never as a run type; a file of the engine may not name one at all.
      const lines = owner !== null ? runTypeLines : namingLines;
      for (const id of ids) if (id !== owner) for (const line of lines(text, id)) found.push(`${file}:${line} names '${id}'`);
    }
    assert.deepEqual(found, [], `move these into the run type's folder or its registry entry:\n${found.join('\n')}`);
  });
});

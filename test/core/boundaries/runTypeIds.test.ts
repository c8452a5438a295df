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
  return text.split('\n').flatMap((line, i) => (literal.test(code(line)) ? [i + 1] : []));
}

describe('run-type ids outside their folders (issue 24)', () => {
  it('finds the names it is meant to find, and not words that contain them', () => {
    assert.deepEqual(namingLines('const a = \'fp\';\nconst b = "avtime";\n`avtime`\n{ fp: 1 }\n  avtime: x,', 'fp'), [1, 4]);
    assert.deepEqual(namingLines('const a = \'fp\';\nconst b = "avtime";\n`avtime`\n{ fp: 1 }\n  avtime: x,', 'avtime'), [2, 3, 5]);
    assert.deepEqual(namingLines("'fp-only'\nfpProtocol\n// 'fp' in a comment\n  /** `fp`, in a doc comment */\nconst avtimeX = 'avtimes';", 'fp'), []);
  });

  it('no product file outside a run type folder or a registry names a run type id', () => {
    const ids = PROTOCOLS.ids;
    const found: string[] = [];
    for (const file of SCANNED.flatMap(filesUnder)) {
      if (REGISTRIES.has(file) || NOT_PRODUCT.some((p) => file.startsWith(p))) continue;
      const owner = ownerOf(file, ids);
      const text = readFileSync(path.join(REPO, file), 'utf8');
      for (const id of ids) if (id !== owner) for (const line of namingLines(text, id)) found.push(`${file}:${line} names '${id}'`);
    }
    assert.deepEqual(found, [], `move these into the run type's folder or its registry entry:\n${found.join('\n')}`);
  });
});

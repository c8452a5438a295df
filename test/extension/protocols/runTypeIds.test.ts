// Issue 24: outside a run type's own folders (src/extension/protocols/<id>/, media/src/protocols/<id>/) and the
// registries, no file of the extension or its webview names a run type: no id as a string literal ('fp',
// "avtime", `fp`) and no id as an object key (`fp:`), so a run type plugs in through the registries alone.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROTOCOLS } from '../../../src/core/protocols/registry';

const REPO = path.resolve(__dirname, '../../..');
const REGISTRIES = ['src/extension/protocols/registry.ts', 'src/extension/protocols/reportContracts.ts', 'media/src/protocols/registry.ts'];

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? filesUnder(rel) : /\.(ts|js|mjs)$/.test(e.name) ? [rel] : [];
  });
}

/** Lines of `text` that name one of `ids` as a string literal or an object key. */
export function namedIds(text: string, ids: readonly string[]): string[] {
  const alt = ids.map((id) => id.replace(/[^\w-]/g, '')).join('|');
  const literal = new RegExp(`(['"\`])(${alt})\\1`);
  const key = new RegExp(`(^|[{,(]\\s*)(${alt})\\s*:(?!:)`);
  return text.split('\n').filter((l) => literal.test(l) || key.test(l.trim()));
}

describe('no run type id outside its folders and the registries', () => {
  const ids = PROTOCOLS.ids;
  const ownFolder = (f: string) => ids.some((id) => f.startsWith(`src/extension/protocols/${id}/`) || f.startsWith(`media/src/protocols/${id}/`));

  it('the check catches a literal and a key (it can fail)', () => {
    assert.deepEqual(namedIds("const p = PROTOCOLS.get('fp');\nx = 1;", ids), ["const p = PROTOCOLS.get('fp');"]);
    assert.deepEqual(namedIds('const s = { avtime: source };', ids), ['const s = { avtime: source };']);
    assert.deepEqual(namedIds('if (kind === "avtime") return;', ids), ['if (kind === "avtime") return;']);
    assert.deepEqual(namedIds("const fps = 'fpsweep'; // fp and avtime in words", ids), []);
  });

  it('holds for every file of src/extension and media/src', () => {
    const files = [...filesUnder('src/extension'), ...filesUnder('media/src')].filter((f) => !ownFolder(f) && !REGISTRIES.includes(f));
    assert.ok(files.length > 20, `only ${files.length} files found`);
    const hits = files.flatMap((f) => namedIds(fs.readFileSync(path.join(REPO, f), 'utf8'), ids).map((l) => `${f}: ${l.trim()}`));
    assert.deepEqual(hits, []);
  });
});

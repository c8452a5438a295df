// The engine knows no protocol: nothing in any folder of src/core but protocols/ (runner, serving, package, doctor,
// and any folder added later) imports from src/core/protocols/ (a protocol imports the engine, never the other
// way), so a third protocol is a new
// folder under protocols/ and a line in protocols/registry.ts, with no edit to the engine. No exception is
// allowed today; were one needed, it would be type-only imports of protocols/registry.ts, listed here.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');
/** Every folder of src/core except protocols/: the engine, read from the tree so a new folder is checked too. */
export function engineFolders(repo: string): string[] {
  return fs
    .readdirSync(path.join(repo, 'src/core'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'protocols')
    .map((e) => `src/core/${e.name}`)
    .sort();
}
// `import … from`, `export … from`, `import '…'`, `import('…')`, `require('…')`: every way a module names another.
const IMPORT = /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every `file imports spec` of an engine module whose target lies under src/core/protocols/. */
export function engineImportsOfProtocols(repo: string): string[] {
  const protocols = path.join(repo, 'src/core/protocols') + path.sep;
  const offenders: string[] = [];
  for (const dir of engineFolders(repo)) {
    for (const f of tsFiles(path.join(repo, dir))) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(IMPORT)) {
        const target = path.resolve(path.dirname(f), m[1]);
        if ((target + path.sep).startsWith(protocols)) offenders.push(`${path.relative(repo, f)} imports ${m[1]}`);
      }
    }
  }
  return offenders;
}

describe('the engine imports no protocol', () => {
  it('no module in a folder of src/core but protocols/ imports from src/core/protocols/', () => {
    assert.deepEqual(engineImportsOfProtocols(REPO), []);
  });

  it('the engine folders are read from the tree: runner, serving, package, doctor at least, never protocols', () => {
    const folders = engineFolders(REPO);
    for (const f of ['src/core/runner', 'src/core/serving', 'src/core/package', 'src/core/doctor']) assert.ok(folders.includes(f), f);
    assert.ok(!folders.includes('src/core/protocols'));
  });

  it('the check sees every import form (it would catch an offender)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boundary-'));
    const forms = [
      "import { a } from '../protocols/fp/x';",
      "import type { A } from '../protocols/types';",
      "export { b } from '../protocols/fp/y';",
      "import '../protocols/fp/z';",
      "const c = await import('../protocols/fp/w');",
      "import {\n  d,\n} from '../protocols/avtime/v';",
    ];
    for (const d of ['src/core/runner', 'src/core/newEngineFolder', 'src/core/protocols/fp']) fs.mkdirSync(path.join(dir, d), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/core/runner/bad.ts'), forms.join('\n') + "\nimport { ok } from './lock';\n");
    fs.writeFileSync(path.join(dir, 'src/core/newEngineFolder/bad.ts'), "import { a } from '../protocols/fp/x';\n");
    // A protocol importing another module of its own (or the engine) is no offence.
    fs.writeFileSync(path.join(dir, 'src/core/protocols/fp/ok.ts'), "import { b } from './y';\nimport { c } from '../../runner/lock';\n");
    assert.equal(engineImportsOfProtocols(dir).length, forms.length + 1);
  });
});

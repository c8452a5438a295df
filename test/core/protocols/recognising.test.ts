// Which run type `--package DIR` is (ProtocolRegistry.recognising) looks at DIR alone: a run type's `recognises`, not
// its findRoots, which also lists the roots under DIR (seconds on a videos root of 50,000 directories, issue 25).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { PROTOCOLS } from '../../../src/core/protocols/registry';
import { ProtocolRegistry, type RunProtocol } from '../../../src/core/protocols/types';
import { defaultRunRoot } from '../../../src/core/runner/runRoot';

function touch(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{}');
}

describe('ProtocolRegistry.recognising: DIR alone', () => {
  let top: string;
  before(() => {
    top = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-recognising-'));
    // Three run roots side by side, of each built-in run type, and a plain folder.
    touch(path.join(top, 'avtime-run', '.fpsweep', 'avtime-run.json'));
    fs.mkdirSync(path.join(top, 'fp-package', 'items', 'samples'), { recursive: true });
    touch(path.join(top, 'videos', 'v1', 'segments.json'));
    fs.mkdirSync(path.join(top, 'videos', 'v2-untracked'));
    fs.mkdirSync(path.join(top, 'plain', 'child'), { recursive: true });
  });
  after(() => fs.rmSync(top, { recursive: true, force: true }));

  it('asks a protocol its recognises, never its findRoots, when it has one', async () => {
    const fake: RunProtocol<unknown, null, null> = {
      id: 'fake',
      title: 'Fake',
      findRoots: () => Promise.reject(new Error('findRoots lists the folder: recognising must not call it')),
      recognises: async (dir) => path.basename(dir) === 'plain',
      runRoot: (root) => defaultRunRoot(root),
      readProgress: () => Promise.reject(new Error('not asked')),
      job: { schema: z.unknown() },
      report: async () => null,
    };
    const registry = new ProtocolRegistry([fake]);
    assert.deepEqual(
      (await registry.recognising(path.join(top, 'plain'))).map((p) => p.id),
      ['fake'],
    );
    assert.deepEqual(await registry.recognising(path.join(top, 'videos')), []);
  });

  it('every built-in run type answers for the folder alone', () => {
    assert.deepEqual(
      PROTOCOLS.all.filter((p) => !p.recognises).map((p) => p.id),
      [],
    );
  });

  it("each built-in's recognises agrees with its findRoots, on its roots, the folder above them, and a plain folder", async () => {
    const dirs = ['avtime-run', 'fp-package', 'videos', 'plain', '.'].map((d) => path.resolve(top, d));
    for (const p of PROTOCOLS.all) {
      for (const d of dirs) assert.equal(await p.recognises!(d), (await p.findRoots(d)).includes(d), `${p.id} on ${d}`);
    }
    const ids = async (d: string) => (await PROTOCOLS.recognising(path.join(top, d))).map((p) => p.id);
    assert.deepEqual(await ids('avtime-run'), ['avtime']);
    assert.deepEqual(await ids('fp-package'), ['fp']);
    assert.deepEqual(await ids('videos'), ['caption']);
    assert.deepEqual(await ids('plain'), []);
  });
});

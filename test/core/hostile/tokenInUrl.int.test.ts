// Issue 33, attack 6: a hub whose LFS batch answer puts the token in the upload href's PATH (not its query, which
// was already cut) and answers the PUT with 503. Through `fpsweep return --upload`, as the user runs it: the retry
// line names the request with the token masked, and the token is in no output and no file of the package.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startStandinHub, type StandinHub } from '../../../src/standins/hub/server';
import { makeReturnsPackage, listFiles } from '../protocols/fp/returns/fixture';
import { removeTempDirs } from '../protocols/fp/returns/tmpDirs';

const TOKEN = 'hf_hostileHubPathToken0123456789abcdef';
const CLI = path.join(__dirname, '../../../src/cli/main.ts');

describe('hostile hub: the token in an upload URL path (issue 33, attack 6)', function () {
  this.timeout(60_000);
  let hub: StandinHub | undefined;
  after(async () => {
    await hub?.close();
    await removeTempDirs();
  });

  it('`return --upload`: the retry line masks the token; it is nowhere in the output or the package', async () => {
    hub = await startStandinHub({
      tokens: { [TOKEN]: { user: 'alice', role: 'write', orgs: ['GMLRVigil'] } },
      tokenInUploadPath: true,
      failOnce: [{ method: 'PUT', pathIncludes: '/_lfs/upload/', status: 503 }],
    });
    const dir = await makeReturnsPackage();
    const hfHome = await fs.mkdtemp(path.join(os.tmpdir(), 'hostile-hfhome-'));
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', CLI, 'return', '--package', dir, '--upload', '--hub-url', hub.url],
      {
        env: { ...process.env, HF_HOME: hfHome, HF_TOKEN: TOKEN },
      },
    );
    // The hub did put the token in the path, and the client did retry that PUT.
    assert.ok(
      hub.requests.some((r) => r.method === 'PUT' && r.path.includes(TOKEN) && r.status === 503),
      'the stand-in failed a PUT to a path holding the token',
    );
    const retry = stderr.split('\n').find((l) => /^retry 1 of PUT /.test(l));
    assert.ok(retry, stderr);
    assert.match(retry, /\/_lfs\/upload\/<hf-token>\/[0-9a-f]{64}: /);
    assert.match(stdout, /^uploaded 2 of 2 files/m);
    for (const text of [stdout, stderr]) assert.equal(text.includes(TOKEN), false, `token in output: ${text}`);
    for (const rel of await listFiles(dir)) {
      assert.equal((await fs.readFile(path.join(dir, rel))).includes(TOKEN), false, `token in ${rel}`);
    }
  });
});

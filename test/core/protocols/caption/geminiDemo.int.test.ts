// The demo's Gemini part (issue 35, point 6): the caption verb's demo service starts the stand-in Gemini as a
// process (bin/fake-gemini), and the demo's Gemini step — the verb a user would type — captions the sample root
// on a sample root of its own (one backend per root): the valid videos done with per-clip JSON, the invalid one
// failed (exit 1), every upload deleted (the ledger empty).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { demoService, demoSteps } from '../../../../src/core/protocols/caption/cli/captionSample';
import { makeCaptionSample } from '../../../../src/core/protocols/caption/sample';
import { clearSecrets } from '../../../../src/core/security/secrets';
import { tmpRoot } from './videosRoot';

describe('fpsweep demo: captioning with the stand-in Gemini', function () {
  this.timeout(180_000);
  const saved = { ...process.env };
  let tmp: string;
  after(() => {
    for (const k of ['GEMINI_API_KEY', 'GOOGLE_GEMINI_BASE_URL'])
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    clearSecrets();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('starts the stand-in, captions the sample through it, stops it', async () => {
    tmp = tmpRoot('gemini-demo-');
    const ctx = { out: path.join(tmp, 'demo'), fresh: false, standIn: true, env: {} as NodeJS.ProcessEnv, repoRoot: path.resolve(__dirname, '../../../..') };
    const service = await demoService(ctx);
    assert.ok(service, 'a service in stand-in mode');
    try {
      Object.assign(ctx.env, service.env);
      Object.assign(process.env, service.env);
      const steps = demoSteps(ctx);
      const gemini = steps.find((s) => s.argv.includes('gemini'));
      assert.ok(gemini, 'a Gemini step');
      await makeCaptionSample({ out: gemini.argv[2] });
      const run = await runCli(gemini.argv);
      assert.ok((gemini.okCodes ?? [0]).includes(run.code), run.out + run.err);
      assert.match(run.out.trim().split('\n').pop()!, /caption: 4 done, 1 failed, 0 pending/);
      const root = gemini.argv[2];
      assert.ok(fs.existsSync(path.join(root, 'video_a', 'captions', 'clip_0001.json')));
      assert.deepEqual(fs.readdirSync(path.join(root, '.fpsweep-caption', 'gemini-uploads')), []);
    } finally {
      service.stop();
    }
    // Without the stand-in (a GPU host, a real key) the demo adds no Gemini step: it never calls Google for you.
    assert.equal(demoSteps({ ...ctx, standIn: false }).filter((s) => s.argv.includes('gemini')).length, 0);
    assert.equal(await demoService({ ...ctx, standIn: false }), null);
  });
});

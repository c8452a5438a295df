import * as assert from 'node:assert/strict';
import { knobEnv, runFlags, settingsSchema } from '../../src/extension/settingsModel';

describe('extension settings', () => {
  it('unset settings leave every knob to the CLI', () => {
    assert.deepEqual(knobEnv(settingsSchema.parse({})), {});
  });

  it('maps settings to the seed knobs', () => {
    const s = settingsSchema.parse({
      ngpu: 2,
      workers: 6,
      maxSeqs: 32,
      gpuUtil: 0.85,
      benchmarks: ['MVBench', 'LVBench'],
      conditions: ['v_1'],
      vllmBin: ' /opt/bin/vllm ',
      extraEnv: { FPSWEEP_STANDIN_LATENCY: 'a=0.02' },
    });
    assert.deepEqual(knobEnv(s), {
      FPSWEEP_STANDIN_LATENCY: 'a=0.02',
      NGPU: '2',
      WORKERS: '6',
      MAX_SEQS: '32',
      GPU_UTIL: '0.85',
      BENCH: 'MVBench,LVBench',
      CONDS: 'v_1',
      VLLM_BIN: '/opt/bin/vllm',
    });
  });

  it('refuses out-of-range values and tokens in settings', () => {
    assert.equal(settingsSchema.safeParse({ ngpu: 0 }).success, false);
    assert.equal(settingsSchema.safeParse({ gpuUtil: 1.5 }).success, false);
    assert.equal(settingsSchema.safeParse({ endpoints: ['not a url'] }).success, false);
    const r = settingsSchema.safeParse({ extraEnv: { HF_TOKEN: 'hf_x' } });
    assert.equal(r.success, false);
    assert.match(r.error!.issues[0].message, /Set Hugging Face token/);
  });

  it("fpsweep.basePort: a run gets --base-port N when set, nothing when unset (the CLI's 8011)", () => {
    assert.deepEqual(runFlags(settingsSchema.parse({}), ['--detach', '--pilot']), []);
    const s = settingsSchema.parse({ basePort: 18_011 });
    assert.deepEqual(runFlags(s, ['--detach', '--pilot']), ['--base-port', '18011']);
    assert.deepEqual(knobEnv(s), {}, 'a flag, not an environment knob');
    // What the run already says wins: its own port, or running servers (nothing is launched).
    assert.deepEqual(runFlags(s, ['--detach', '--base-port', '9000']), []);
    assert.deepEqual(runFlags(s, ['--detach', '--endpoints', 'http://127.0.0.1:9001']), []);
    assert.equal(settingsSchema.safeParse({ basePort: 80 }).success, false, "below the CLI's 1024");
    assert.equal(settingsSchema.safeParse({ basePort: 65_536 }).success, false);
    assert.equal(settingsSchema.safeParse({ basePort: 8011.5 }).success, false);
  });
});

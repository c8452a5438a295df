// The planted sample (sample --planted) run through the stand-in vLLM, in two stages like a sweep in progress:
// a partial sweep leaves every benchmark `pending`; the full one gives the planted verdicts from
// `fpsweep findings --json`, and its numbers match scipy/statsmodels joining the package's own files.
import { strict as assert } from 'node:assert';
import { copySamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { startStandin, type Standin } from '../sweep/helpers';
import { runCli } from '../../../../helpers/captureOutput';
import { findingsSchema, type Findings } from '../../../../../src/core/protocols/fp/findings';
import { PLANTED_BENCHMARK } from '../../../../../src/core/protocols/fp/sample/planted';
import { close, pythonReference } from './pythonReference';

const BENCH = Object.values(PLANTED_BENCHMARK).join(',');
const PARTIAL = ['v_blind', 'v_32', 'v_32_s448'];
const REST = ['v_1', 'v_8_s224', 'v_32_s168', 'v_128_s224'];

async function findingsJson(root: string): Promise<Findings> {
  const r = await runCli(['findings', '--package', root, '--json']);
  assert.equal(r.code, 0, r.err);
  return findingsSchema.parse(JSON.parse(r.out));
}

describe('findings on the planted sample through the stand-in', function () {
  this.timeout(SAMPLE_TIMEOUT_MS + 600_000);
  let root = '';
  let standin: Standin | null = null;

  before(async function () {
    root = (await copySamplePackage({ planted: true })).root;
    standin = await startStandin();
  });
  after(async () => standin?.stop());

  const run = async (conds: string[]) => {
    const r = await runCli(['run', '--package', root, '--endpoints', standin!.url, '--bench', BENCH, '--conds', conds.join(',')]);
    assert.equal(r.code, 0, r.err);
  };

  it('a partial sweep (3 of 7 conditions) is pending everywhere, and says which contrast lacks pairs', async function () {
    await run(PARTIAL);
    const f = await findingsJson(root);
    for (const name of Object.values(PLANTED_BENCHMARK)) {
      const b = f.benchmarks.find((x) => x.benchmark === name)!;
      assert.equal(b.verdict, 'pending', `${name}: ${b.why}`);
      assert.match(b.why, /pixels has 0 of the 100 pairs needed/);
      assert.equal(b.contrasts.video.n, 120);
    }
  });

  it('the full sweep gives the planted verdicts', async function () {
    await run(REST);
    const f = await findingsJson(root);
    const verdicts = Object.fromEntries(f.benchmarks.map((b) => [b.benchmark, b.verdict]));
    assert.deepEqual(
      Object.values(PLANTED_BENCHMARK).map((n) => verdicts[n]),
      ['pixels', 'frames', 'blind-solvable', 'neither'],
    );
    // the sample's own benchmarks have a handful of items: never a verdict
    for (const b of f.benchmarks) if (!b.benchmark.startsWith('Planted')) assert.equal(b.verdict, 'pending', b.benchmark);
  });

  it('its numbers match scipy/statsmodels joining the package files independently (1e-9)', function () {
    return (async () => {
      const f = await findingsJson(root);
      const ref = pythonReference(['package', root]);
      let compared = 0;
      for (const b of f.benchmarks) {
        const want = ref[b.benchmark];
        close(b.chance! / 100, want.chance, `${b.benchmark} chance`);
        for (const [cond, w] of Object.entries<any>(want.cells)) {
          const c = b.cells[cond];
          assert.deepEqual([c.n, c.k, c.na, c.reuse], [w.n, w.k, w.na, w.reuse], `${b.benchmark} ${cond}`);
          if (w.n) {
            close(c.lo! / 100, w.lo, `${b.benchmark} ${cond} lo`);
            close(c.hi! / 100, w.hi, `${b.benchmark} ${cond} hi`);
          }
        }
        for (const [name, w] of Object.entries<any>(want.contrasts)) {
          const c = b.contrasts[name as keyof typeof b.contrasts];
          assert.deepEqual([c.n, c.b, c.c], [w.n, w.b, w.c], `${b.benchmark} ${name}`);
          if (!w.n) continue;
          close(c.delta! / 100, w.mean, `${b.benchmark} ${name} Δ`);
          close(c.lo! / 100, w.lo, `${b.benchmark} ${name} lo`);
          close(c.hi! / 100, w.hi, `${b.benchmark} ${name} hi`);
          close(c.mde! / 100, w.mde, `${b.benchmark} ${name} mde`);
          close(c.p, w.p, `${b.benchmark} ${name} p`);
          if (name === 'pixels' || name === 'frames') close(c.q, w.q, `${b.benchmark} ${name} q`);
          else assert.equal(c.q, null);
          compared++;
        }
      }
      assert.ok(compared >= 16, `compared ${compared} contrasts`);
    })();
  });
});

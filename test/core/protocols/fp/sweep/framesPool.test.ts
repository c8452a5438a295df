// Issue 45: the CPU path's decode pool is what `run --help` says, min(cores − 1, max(4, ⌈cores / 4⌉)), when
// --decode-workers is not given (it was cores − 1: 15 decodes on a 16-core host, 6.6 s a video against 2.7 s at 4).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import * as path from 'node:path';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { framesFor, framesPoolSize } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema } from '../../../../../src/core/protocols/fp/sweep/runOptions';

describe('fp/sweep: the frame pool a run gets', () => {
  let pkg: string;
  const realCores = os.availableParallelism;
  before(() => {
    pkg = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-pool-'));
  });
  afterEach(() => {
    os.availableParallelism = realCores;
  });
  after(() => rmSync(pkg, { recursive: true, force: true }));

  it('the CPU path: --decode-workers, else the capped default; the GPU path: one a helper', () => {
    assert.deepEqual(
      [2, 4, 8, 16, 32, 96].map((cores) => framesPoolSize(undefined, 0, cores)),
      [1, 3, 4, 4, 8, 24],
    );
    assert.equal(framesPoolSize(15, 0, 16), 15);
    assert.equal(framesPoolSize(undefined, 4, 16), 4);
    assert.equal(framesPoolSize(8, 8, 16), 8);
  });

  it('run --frames-on cpu on a 16-core host, no --decode-workers: 4 videos at once, not 15', async () => {
    os.availableParallelism = () => 16;
    const layout = new PackageLayout(pkg);
    for (const [given, want] of [
      [undefined, 4],
      [15, 15],
    ] as const) {
      const frames = await framesFor(runOptionsSchema.parse({ package: pkg, framesOn: 'cpu', decodeWorkers: given }), layout);
      try {
        assert.equal(frames.concurrency, want, `--decode-workers ${given}`);
        assert.equal(frames.pipeline.settings.poolSize, want);
      } finally {
        await frames.close();
      }
    }
  });
});

// Issue 43's caption crash: a rank whose first to-do video is invalid crashed with "Cannot read properties of
// undefined (reading 'stem')" (the pre-flight's search prepared the invalid video, which finished and left the run's
// map; the runner then prepared `undefined`). Property: any order of valid and invalid videos, any shard count, the
// pre-flight on (the stand-in vLLM answers it as the pinned vLLM), every rank run with --keep-going: every valid
// video is captioned, no invalid one, and a rank exits 0 exactly when it holds no invalid video.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { runCli } from '../../../helpers/captureOutput';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { DEFAULT_CAPTION_MODEL } from '../../../../src/core/protocols/caption/cli/caption';
import { startStandin, type RunningStandin } from '../../serving/helpers';
import { addVideo, makeClipMedia, tmpRoot, type MediaPair } from './videosRoot';

describe('fpsweep avtime caption: any order of valid and invalid videos, any shard count (issue 43)', function () {
  this.timeout(240_000);
  let base: string;
  let media: MediaPair;
  let standin: RunningStandin;

  before(async () => {
    base = tmpRoot('caption-order-');
    media = makeClipMedia(tmpRoot('caption-media-'));
    standin = await startStandin(['--served-model-name', DEFAULT_CAPTION_MODEL, '--allowed-local-media-path', base, '--max-model-len', '65536'], {
      FPSWEEP_STANDIN_LATENCY: 'a=0,b=0',
    });
  });
  after(async () => {
    await standin?.stop();
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** One case: videos v00…, in name order, valid or not; every rank K/N run once; what each rank said. */
  async function captionAll(valid: readonly boolean[], shards: number) {
    const root = fs.mkdtempSync(path.join(base, 'root-'));
    const stems = valid.map((_, i) => `v${String(i).padStart(2, '0')}`);
    // An invalid video: two clips with a gap between them (the rule it breaks is `contiguous`).
    stems.forEach((stem, i) => addVideo(root, stem, media, valid[i] ? 1 : 2, valid[i] ? {} : { gapAfter: 0 }));
    const ranks: { code: number; out: string }[] = [];
    for (let k = 1; k <= shards; k++) {
      const shard = shards > 1 ? ['--shard', `${k}/${shards}`] : [];
      const r = await runCli(['avtime', 'caption', root, '--base-url', standin.url, '--keep-going', '--tick-ms', '100', '--retry-delay-ms', '10', ...shard]);
      ranks.push({ code: r.code, out: r.out + r.err });
    }
    return { root, stems, ranks };
  }

  function check(valid: readonly boolean[], shards: number, c: Awaited<ReturnType<typeof captionAll>>): void {
    const all = c.ranks.map((r) => r.out).join('\n');
    assert.doesNotMatch(all, /Cannot read properties/, all);
    c.stems.forEach((stem, i) => {
      const file = new CaptionLayout(c.root).captionsFile(stem);
      assert.equal(fs.existsSync(file), valid[i], `${stem} (${valid[i] ? 'valid' : 'invalid'}) captioned: ${!valid[i]}; shards ${shards}\n${all}`);
    });
    c.ranks.forEach((r) => {
      const m = /caption: (\d+) done, (\d+) failed, (\d+) pending/.exec(r.out);
      assert.ok(m, r.out);
      assert.equal(Number(m[3]), 0, r.out);
      assert.equal(r.code, Number(m[2]) === 0 ? 0 : 1, r.out);
    });
    const sum = (g: number) => c.ranks.reduce((s, r) => s + Number(/caption: (\d+) done, (\d+) failed/.exec(r.out)![g]), 0);
    assert.equal(sum(1), valid.filter((v) => v).length);
    assert.equal(sum(2), valid.filter((v) => !v).length);
  }

  it("the issue's case: the invalid video sorts first (one rank, then two)", async () => {
    for (const shards of [1, 2]) check([false, true, true], shards, await captionAll([false, true, true], shards));
  });

  it('property: every valid video captioned, whatever the order and the shard count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), async (valid, shards) => {
        check(valid, shards, await captionAll(valid, shards));
      }),
      { numRuns: 8, seed: Number(process.env.FPSWEEP_PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
  });
});

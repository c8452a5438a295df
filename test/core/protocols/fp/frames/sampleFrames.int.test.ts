import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import sharp from 'sharp';
import { FramePipeline, readJpegs, type FrameRequest } from '../../../../../src/core/protocols/fp/frames';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { videoMetaSchema, type VideoMeta } from '../../../../../src/core/protocols/fp/package/schemas';
import { parseCondition, planFrames } from '../../../../../src/core/protocols/fp/rules';
import { decodeFrameCode } from '../../../../../src/core/protocols/fp/sample/frameCode';
import type { SampleVideo } from '../../../../../src/core/protocols/fp/sample/plan';
import { getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from '../sample/fixture';

// On the shared sample package (read-only): videos that start late, have irregular frame spacing, are
// portrait, 4:3 or stored at 480. Each JPEG shows which stored frame (and which video) it came from.
describe('frame pipeline on the sample package', function () {
  this.timeout(SAMPLE_TIMEOUT_MS);
  let sample: SampleFixture;
  let storeDir: string;

  before(async () => {
    sample = await getSamplePackage();
  });
  // A fresh store per attempt, so a retry decodes everything again.
  beforeEach(async () => {
    storeDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-frames-sample-'));
  });
  afterEach(async () => {
    await fs.rm(storeDir, { recursive: true, force: true });
  });

  async function metaOf(hash: string): Promise<VideoMeta> {
    const layout = new PackageLayout(sample.root);
    return videoMetaSchema.parse(JSON.parse(await fs.readFile(layout.metaFile(hash), 'utf8'))) as VideoMeta;
  }

  function pick(what: string, test: (v: SampleVideo) => boolean): SampleVideo {
    const v = sample.plan.videos.find(test);
    assert.ok(v, `the sample package has a ${what} video`);
    return v;
  }

  it('sends the planned stored frames of late-start, irregular, portrait, 4:3 and stored-480 videos', async function () {
    // One CI run on a loaded machine saw sharp fail to open a temp JPEG in the video's store folder
    // (ENOENT right after the folder was made); not reproduced since. One retry keeps CI honest about
    // everything else while that is investigated (see the closing note of the frame-pipeline issue).
    // FPSWEEP_NO_RETRY=1 shows the first failure (for hunting the flake under load).
    this.retries(process.env.FPSWEEP_NO_RETRY ? 0 : 1);
    const videos = [
      pick('late-start', (v) => v.lateStart && !v.long),
      pick('irregular', (v) => v.vfr),
      pick('portrait', (v) => v.height > v.width && !v.long),
      pick('4:3', (v) => v.width * 3 === v.height * 4 && !v.long),
      pick('stored-480 long', (v) => v.storedShortSide === 480 && v.long),
    ];
    const conditions = ['v_1', 'v_8_s224', 'v_32_s168', 'v_fps0.25_s224'];
    const pipeline = new FramePipeline({ storeDir, poolSize: 2 });
    const layout = new PackageLayout(sample.root);
    await Promise.all(
      videos.map(async (v) => {
        const meta = await metaOf(v.hash);
        const requests: FrameRequest[] = [];
        for (const c of conditions) {
          const plan = planFrames(parseCondition(c), meta);
          if (plan.status !== 'send' || plan.width === null || plan.height === null) continue;
          requests.push({ key: c, indices: plan.indices, width: plan.width, height: plan.height });
        }
        assert.ok(requests.length >= 3, `${v.hash}: conditions to send`);
        const prepared = await pipeline.prepare({ hash: v.hash, videoPath: layout.videoFile(v.hash), meta, requests });
        assert.equal(prepared.decodedFrames, meta.n_frames, `${v.hash}: decoded once, every frame`);
        for (const req of requests) {
          const got = prepared.get(req.key);
          assert.ok(got.ok, `${v.hash} ${req.key}: ${!got.ok && got.message}`);
          if (!got.ok) continue;
          const jpegs = await readJpegs(got.paths);
          const codes = await Promise.all(jpegs.map((b) => decodeFrameCode(b)));
          assert.deepEqual(
            codes.map((c) => c.frameIndex),
            req.indices,
            `${v.hash} ${req.key}: the stored frames planFrames chose`,
          );
          assert.ok(
            codes.every((c) => c.videoTag === v.tag),
            `${v.hash} ${req.key}: frames of this video`,
          );
          const m = await sharp(jpegs[0]).metadata();
          assert.deepEqual([m.width, m.height], [req.width, req.height]);
        }
        prepared.release();
      }),
    );
  });
});

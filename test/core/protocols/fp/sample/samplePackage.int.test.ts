// The shared sample package (fixture.ts) checked against the SPEC §1 contract and its own plan.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import sharp from 'sharp';
import * as tar from 'tar';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS, type SampleFixture } from './fixture';
import { decodeFrameCode } from '../../../../../src/core/protocols/fp/sample/frameCode';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { loadPackage } from '../../../../../src/core/protocols/fp/package/load';
import { readResultsCsv } from '../../../../../src/core/protocols/fp/package/resultsCsv';
import {
  rawRecordSchema,
  scopeSummarySchema,
  videoMetaSchema,
  videosManifestSchema,
  type VideoMeta,
} from '../../../../../src/core/protocols/fp/package/schemas';
import { buildPromptText, parseCondition, planFrames, predictContextRefusal, resizeDims } from '../../../../../src/core/protocols/fp/rules';

const execa = () => import('execa').then((m) => m.execa);

/** ffprobe's own account of the frames' presentation times (independent of the generator's probe). */
async function ffprobeFrameTimes(file: string): Promise<number[]> {
  const { stdout } = await (await execa())('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file]);
  return stdout
    .split('\n')
    .map((l) => l.replace(/,+$/, '').trim())
    .filter(Boolean)
    .map(Number);
}

/** Decodes the given stored frames (by decode order, no rate conversion) as raw RGB. */
async function extractFrames(file: string, width: number, height: number, indices: number[]): Promise<Buffer[]> {
  const select = indices.map((k) => `eq(n\\,${k})`).join('+');
  const { stdout } = await (
    await execa()
  )('ffmpeg', ['-v', 'error', '-i', file, '-vf', `select='${select}'`, '-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    encoding: 'buffer',
  });
  const size = width * height * 3;
  const buf = Buffer.from(stdout);
  assert.equal(buf.length, size * indices.length, 'one frame out per index asked');
  return indices.map((_, i) => buf.subarray(i * size, (i + 1) * size));
}

async function readMeta(layout: PackageLayout, hash: string): Promise<VideoMeta> {
  return videoMetaSchema.parse(JSON.parse(await fs.readFile(layout.metaFile(hash), 'utf8')));
}

describe('fpsweep sample: the package', function () {
  this.timeout(SAMPLE_TIMEOUT_MS);
  let sample: SampleFixture;
  let layout: PackageLayout;

  before(async () => {
    sample = await getSamplePackage();
    layout = new PackageLayout(sample.root);
    console.log(`    sample package: ${sample.root} (${sample.generated ? `generated in ${sample.summary.seconds.toFixed(1)} s` : 'from cache'})`);
  });

  it('loads with the package reader without a single problem, items as planned', async () => {
    const pkg = await loadPackage(sample.root);
    assert.deepEqual(pkg.problems, []);
    assert.deepEqual(pkg.benchmarks, sample.plan.benchmarks);
    for (const bench of sample.plan.benchmarks) {
      const planned = sample.plan.items.filter((i) => i.benchmark === bench).map(({ hash: _h, missing: _m, ...it }) => it);
      assert.deepEqual(pkg.items.get(bench), planned, bench);
    }
    for (const it of sample.plan.items) {
      const hash = pkg.manifest.get(it.benchmark)?.get(it.video_id);
      assert.equal(hash ?? null, it.missing === 'no_manifest_row' ? null : (it.hash ?? hash), it.item_id);
    }
  });

  it('has the benchmarks, shapes and video kinds the tests rely on', () => {
    const { plan } = sample;
    assert.deepEqual(plan.benchmarks, ['MVBench', 'NExTQA', 'EgoSchema', 'LVBench', 'TimeScope']);
    const v = plan.videos;
    const aspects = new Set(v.map((x) => (x.width === x.height ? 'square' : x.width > x.height ? `${Math.round((x.width / x.height) * 9)}:9` : 'portrait')));
    assert.ok(aspects.has('16:9') && aspects.has('12:9') && aspects.has('portrait'), [...aspects].join());
    assert.ok(v.some((x) => x.storedShortSide === 480) && v.some((x) => x.storedShortSide === 720));
    assert.ok(v.some((x) => x.tooShort) && v.some((x) => x.lateStart) && v.some((x) => x.vfr));
    assert.ok(v.filter((x) => x.long).length >= 2);
    assert.ok(
      v.some((x) => x.uses.length > 1),
      'one video serves two benchmarks',
    );
    assert.ok(
      v.some((x) => x.square && x.long),
      'a long square video (context refusal at fps2)',
    );
    for (const bench of plan.benchmarks) {
      const items = plan.items.filter((i) => i.benchmark === bench && i.hash);
      const perVideo = new Map<string, number>();
      for (const i of items) perVideo.set(i.hash!, (perVideo.get(i.hash!) ?? 0) + 1);
      assert.ok(
        [...perVideo.values()].some((n) => n >= 2),
        `${bench}: several questions per video`,
      );
    }
  });

  it('has 4–5 options per item, answers spread over the letters, and exactly one markup question (MVBench)', () => {
    const items = sample.plan.items;
    for (const it of items) assert.ok(it.options.length === 4 || it.options.length === 5, it.item_id);
    const letters = new Set(items.map((i) => i.answer));
    for (const l of ['A', 'B', 'C', 'D', 'E']) assert.ok(letters.has(l), `answer ${l} used`);
    for (const bench of sample.plan.benchmarks) {
      assert.ok(new Set(items.filter((i) => i.benchmark === bench).map((i) => i.answer)).size >= 3, bench);
    }
    const xss = items.filter((i) => i.question.includes('<img src=x onerror=alert(1)>'));
    assert.equal(xss.length, 1);
    assert.equal(xss[0].benchmark, 'MVBench');
    assert.equal(xss[0].item_id, sample.plan.xssItemId);
  });

  it('misses the videos the plan says: one item without a manifest row, items whose folder is absent', async () => {
    const { plan } = sample;
    const noRow = plan.items.filter((i) => i.missing === 'no_manifest_row');
    const noFolder = plan.items.filter((i) => i.missing === 'no_folder');
    assert.ok(noRow.length >= 1 && noFolder.length >= 1);
    const manifest = (await fs.readFile(layout.manifest, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const i of noRow) assert.ok(!manifest.some((r) => r.benchmark === i.benchmark && r.video_id === i.video_id));
    for (const i of noFolder) {
      const row = manifest.find((r) => r.benchmark === i.benchmark && r.video_id === i.video_id);
      assert.ok(row && plan.missingFolderHashes.includes(row.hash));
      await assert.rejects(fs.stat(layout.videoDir(row.hash)), { code: 'ENOENT' });
    }
    const folders = (await fs.readdir(layout.storeDir)).sort();
    assert.deepEqual(folders, plan.videos.map((v) => v.hash).sort());
  });

  it("writes meta.json from the stored frames: timestamps equal ffprobe's, sizes and flags per SPEC §1", async function () {
    for (const v of sample.plan.videos) {
      const meta = await readMeta(layout, v.hash);
      const times = await ffprobeFrameTimes(layout.videoFile(v.hash));
      assert.deepEqual(meta.timestamps, times, v.hash);
      assert.equal(meta.n_frames, times.length);
      assert.equal(meta.n_frames, v.nFrames);
      assert.equal(meta.too_short, meta.n_frames <= 32);
      assert.equal(meta.too_short, v.tooShort);
      assert.deepEqual([meta.width, meta.height], [v.width, v.height]);
      assert.equal(Math.min(meta.width, meta.height), meta.duration_s > 1800 ? 480 : 720, `${v.hash} storage rule`);
      assert.equal(meta.timestamps[0] > 0, v.lateStart);
      // "2 fps or 1024 frames max"
      assert.ok(meta.n_frames <= 1024);
      if (meta.n_frames < 1024) assert.ok(Math.abs(meta.n_frames / meta.duration_s - 2) < 0.01, `${v.hash} at 2 fps`);
    }
  });

  it('gives the protocol what the pilot checks expect: long videos capped at fps1/fps2, not fps0.25; short never', async () => {
    const fps = ['v_fps0.25_s224', 'v_fps0.5_s224', 'v_fps1_s224', 'v_fps2_s224'].map(parseCondition);
    for (const v of sample.plan.videos) {
      const meta = await readMeta(layout, v.hash);
      const plans = fps.map((c) => planFrames(c, meta));
      if (v.tooShort) {
        assert.ok(plans.every((p) => p.status === 'NA'));
        assert.equal(planFrames(parseCondition('v_128_s224'), meta).status, 'NA');
        continue;
      }
      const capped = plans.map((p) => (p.status === 'send' ? p.cappedCtx : null));
      if (v.long && !v.square) assert.deepEqual([capped[0], capped[2], capped[3]], [false, true, true], v.hash);
      else assert.deepEqual(capped, [false, false, false, false], v.hash);
      // What a 65,536-token server would refuse (SPEC §2.5): only fps2 of the long square video.
      const prompt = buildPromptText('Q?', ['a', 'b', 'c', 'd']);
      const refused = plans.map(
        (p) =>
          p.status === 'send' &&
          predictContextRefusal(
            p.indices.map(() => ({ width: p.width!, height: p.height! })),
            prompt,
            65536,
          ),
      );
      assert.deepEqual(refused, [false, false, false, v.long && v.square], v.hash);
    }
    for (const v of sample.plan.videos.filter((x) => x.uses.some((u) => u.benchmark === 'MVBench'))) assert.ok(!v.long);
    const wide = sample.plan.videos.filter((x) => x.long && Math.abs(x.width / x.height - 16 / 9) < 0.01);
    assert.ok(wide.length >= 2);
    for (const w of wide) {
      const p = planFrames(parseCondition('v_fps1_s224'), await readMeta(layout, w.hash));
      assert.ok(p.status === 'send' && p.nMax === 582 && p.cappedCtx === true, w.hash);
    }
  });

  it("shows each stored frame's own index and video tag, also after resize to 168 px and JPEG q85", async function () {
    const picks = sample.plan.videos.filter((v) => v.vfr || v.lateStart || v.storedShortSide === 480 || v.height > v.width);
    for (const v of picks) {
      const indices = [...new Set([0, 1, Math.floor(v.nFrames / 3), v.nFrames - 2, v.nFrames - 1])];
      const frames = await extractFrames(layout.videoFile(v.hash), v.width, v.height, indices);
      for (let i = 0; i < indices.length; i++) {
        const raw = { data: frames[i], width: v.width, height: v.height, channels: 3 as const };
        assert.deepEqual(await decodeFrameCode(raw), { frameIndex: indices[i], videoTag: v.tag }, `${v.hash} frame ${indices[i]}`);
        const d = resizeDims(v.width, v.height, 168);
        const jpeg = await sharp(frames[i], { raw: { width: v.width, height: v.height, channels: 3 } })
          .resize(d.width, d.height, { kernel: 'lanczos3', fit: 'fill' })
          .jpeg({ quality: 85, chromaSubsampling: '4:2:0' })
          .toBuffer();
        assert.equal(Math.min(d.width, d.height), 168);
        assert.deepEqual(await decodeFrameCode(jpeg), { frameIndex: indices[i], videoTag: v.tag }, `${v.hash} frame ${indices[i]} at 168`);
      }
    }
  });

  it('ships shards whose sha256 and size match videos_manifest.json and that hold exactly the store', async () => {
    const manifest = videosManifestSchema.parse(JSON.parse(await fs.readFile(layout.videosManifest, 'utf8')));
    assert.equal(manifest.n_videos, sample.plan.videos.length);
    assert.ok(manifest.shards.length >= 2);
    const entries: string[] = [];
    for (const s of manifest.shards) {
      const bytes = await fs.readFile(layout.shardFile(s.file));
      assert.equal(bytes.length, s.bytes, s.file);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), s.sha256, s.file);
      await tar.list({
        file: layout.shardFile(s.file),
        onReadEntry: (e) => {
          entries.push(e.path);
        },
      });
    }
    const expected = sample.plan.videos.flatMap((v) => [`${v.hash}/video.mp4`, `${v.hash}/meta.json`]);
    assert.deepEqual([...entries].sort(), [...expected].sort());
    // Extracting the shards gives the store byte for byte.
    const out = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-sample-x-'));
    try {
      for (const s of manifest.shards) await tar.extract({ file: layout.shardFile(s.file), cwd: out });
      for (const e of expected) {
        assert.ok((await fs.readFile(path.join(out, e))).equals(await fs.readFile(path.join(layout.storeDir, e))), e);
      }
    } finally {
      await fs.rm(out, { recursive: true, force: true });
    }
  });

  it('has existing base rows: CSV (SPEC §4 header) and raw records agree, scope summary counts them', async () => {
    const csv = await readResultsCsv(layout.resultsCsv, { keepRows: true });
    assert.deepEqual(csv.problems, []);
    assert.equal(csv.torn, null);
    const csvRow = new Map(csv.rows.map((r) => [`${r[0]}/${r[1]}/${r[2]}`, r]));
    assert.deepEqual(csv.header, ['benchmark', 'item_id', 'condition', 'status', 'pred', 'answer', 'correct', 'n_frames', 'prompt_tokens', 'latency_s', 'ts']);
    assert.equal(csv.done.size, sample.plan.existing.length);
    for (const r of sample.plan.existing) assert.ok(csv.done.has(r.benchmark, r.item_id, r.condition), `${r.item_id} ${r.condition}`);

    const scope = scopeSummarySchema.parse(JSON.parse(await fs.readFile(layout.scopeSummary, 'utf8')));
    assert.deepEqual(scope.benchmarks, sample.plan.benchmarks);
    let total = 0;
    for (const [cond, byBench] of Object.entries(scope.existing_by_condition)) {
      for (const [bench, n] of Object.entries(byBench)) {
        assert.equal(csv.done.count(bench, cond), n, `${cond} ${bench}`);
        total += n;
      }
    }
    assert.equal(total, csv.done.size);

    const conds = [...new Set(sample.plan.existing.map((r) => r.condition))];
    const benches = [...new Set(sample.plan.existing.map((r) => r.benchmark))];
    let raws = 0;
    for (const cond of conds) {
      for (const bench of benches) {
        const text = await fs.readFile(layout.rawFile(cond, bench), 'utf8').catch(() => '');
        for (const line of text.split('\n').filter(Boolean)) {
          const raw = rawRecordSchema.parse(JSON.parse(line));
          raws++;
          const item = sample.plan.items.find((i) => i.benchmark === bench && i.item_id === raw.item_id)!;
          assert.equal(raw.answer, item.answer);
          assert.equal(raw.correct, raw.pred === raw.answer ? 1 : 0);
          const row = csvRow.get(`${bench}/${raw.item_id}/${cond}`)!;
          assert.deepEqual(
            [row[3], row[4], row[5], row[6], row[7], row[8], row[10]],
            ['ok', raw.pred, raw.answer, String(raw.correct), String(raw.meta.n_frames_used), String(raw.usage.prompt_tokens), raw.ts],
          );
          if (cond !== 'v_blind') {
            const want = planFrames(parseCondition(cond), await readMeta(layout, item.hash!));
            assert.ok(want.status === 'send');
            assert.deepEqual(raw.meta.frame_indices, want.indices);
            assert.equal(raw.meta.short_side, want.shortSide);
          } else {
            assert.deepEqual(raw.meta.frame_indices, []);
          }
        }
      }
    }
    assert.equal(raws, sample.plan.existing.length);
    // The reuse rule has v_32 rows of stored-480 videos to copy from.
    const hash480 = new Set(sample.plan.videos.filter((v) => v.storedShortSide === 480).map((v) => v.hash));
    assert.ok(
      sample.plan.existing.some(
        (r) => r.condition === 'v_32' && hash480.has(sample.plan.items.find((i) => i.item_id === r.item_id && i.benchmark === r.benchmark)!.hash!),
      ),
    );
    // An item without a video that is already done (its v_blind row exists).
    assert.ok(sample.plan.existing.some((r) => sample.plan.items.find((i) => i.item_id === r.item_id && i.benchmark === r.benchmark)!.missing));
  });

  it('hands out private copies (with or without the extracted store) that leave the shared one alone', async () => {
    const full = await copySamplePackage();
    const shardsOnly = await copySamplePackage({ extract: false });
    try {
      assert.notEqual(full.root, sample.root);
      assert.deepEqual((await fs.readdir(new PackageLayout(full.root).storeDir)).sort(), sample.plan.videos.map((v) => v.hash).sort());
      await assert.rejects(fs.stat(path.join(shardsOnly.root, 'data')), { code: 'ENOENT' });
      assert.ok((await fs.readFile(new PackageLayout(shardsOnly.root).videosManifest)).equals(await fs.readFile(layout.videosManifest)));
      await fs.appendFile(new PackageLayout(full.root).resultsCsv, 'MVBench,x,v_1,ok,A,A,1,1,10,0.5,now\n');
      const before = (await fs.stat(layout.resultsCsv)).size;
      assert.equal((await getSamplePackage()).root, sample.root);
      assert.equal((await fs.stat(layout.resultsCsv)).size, before);
    } finally {
      await fs.rm(path.dirname(full.root), { recursive: true, force: true });
      await fs.rm(path.dirname(shardsOnly.root), { recursive: true, force: true });
    }
  });
});

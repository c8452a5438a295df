import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import {
  FramePipeline,
  jpegPipeline,
  readJpegs,
  jpegFileUrls,
  type VideoJob,
  type PreparedFrames,
  type FrameRequest,
} from '../../../../../src/core/protocols/fp/frames';
import { parseCondition, planFrames, resizeDims } from '../../../../../src/core/protocols/fp/rules';
import { decodeFrameIndex } from '../../../../../src/core/protocols/fp/sample/frameCode';
import { makeCodedVideo, type CodedVideo } from './codedVideo';
import { decodeSelectedFrames } from '../../../../../src/core/protocols/fp/frames/ffmpegDecode';
import { ByteBudget } from '../../../../../src/core/protocols/fp/frames/limits';

const execFileAsync = promisify(execFile);
import { IJG_CHROMA, IJG_LUMA, readJpegMarkers } from './jpegInspect';
import { waitFor } from '../../../../helpers/waitFor';
import { pidAlive } from '../../../../../src/core/runner/lock';

const loadExeca = () => import('execa').then((m) => m.execa);

function jobFor(v: CodedVideo, requests: FrameRequest[]): VideoJob {
  return { hash: v.hash, videoPath: v.videoPath, meta: v.meta, requests };
}

/** A request as the runner builds it: indices and dims from planFrames, nowhere else. */
function planned(v: CodedVideo, condition: string): FrameRequest {
  const plan = planFrames(parseCondition(condition), v.meta);
  assert.equal(plan.status, 'send', `${condition} should send frames for ${v.hash}`);
  if (plan.status !== 'send' || plan.width === null || plan.height === null) throw new Error('unreachable');
  return { key: condition, indices: plan.indices, width: plan.width, height: plan.height };
}

function ok(prepared: { get(k: string): unknown }, key: string): PreparedFrames {
  const got = prepared.get(key) as PreparedFrames | { ok: false; message: string };
  assert.ok(got.ok, `request ${key} failed: ${(got as { message?: string }).message}`);
  return got as PreparedFrames;
}

async function listJpegs(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter((n) => n.endsWith('.jpg')).sort();
  } catch {
    return [];
  }
}

describe('frame pipeline', function () {
  this.timeout(120_000);
  let tmp: string;
  let videosDir: string;
  let v169: CodedVideo;
  let v43: CodedVideo;
  let v916: CodedVideo;
  let v480: CodedVideo;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-frames-'));
    videosDir = path.join(tmp, 'videos');
    [v169, v43, v916, v480] = await Promise.all([
      makeCodedVideo(videosDir, 'v169', { width: 1280, height: 720, nFrames: 40 }),
      makeCodedVideo(videosDir, 'v43', { width: 960, height: 720, nFrames: 6 }),
      makeCodedVideo(videosDir, 'v916', { width: 720, height: 1280, nFrames: 6 }),
      makeCodedVideo(videosDir, 'v480', { width: 854, height: 480, nFrames: 6 }),
    ]);
  });
  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  const newPipeline = (name: string, extra: Partial<ConstructorParameters<typeof FramePipeline>[0]> = {}) =>
    new FramePipeline({ storeDir: path.join(tmp, name), poolSize: 2, ...extra });

  it('serves exactly the frames planFrames chose, in order, for every condition of a video from one decode', async () => {
    const conditions = ['v_1', 'v_8_s224', 'v_32_s168', 'v_32', 'v_fps0.5_s224', 'v_fps2_s224', 'v_128_s224'];
    const p = newPipeline('choice');
    const prepared = await p.prepare(
      jobFor(
        v169,
        conditions.map((c) => planned(v169, c)),
      ),
    );
    assert.equal(prepared.decodedFrames, 40, 'ffmpeg decoded the whole video once');
    const stats = await p.stats();
    assert.equal(stats.videosDecoded, 1);
    for (const c of conditions) {
      const want = planned(v169, c);
      const got = ok(prepared, c);
      assert.equal(got.paths.length, want.indices.length, c);
      const shown = await Promise.all((await readJpegs(got.paths)).map((b) => decodeFrameIndex(b)));
      assert.deepEqual(shown, want.indices, `${c}: the JPEGs show the planned stored frames`);
    }
    // The union was made once: one file per distinct (frame, size).
    const distinct = new Set(
      conditions.flatMap((c) => {
        const r = planned(v169, c);
        return r.indices.map((i) => `${i}_${r.width}x${r.height}`);
      }),
    );
    assert.equal(prepared.jpegsWritten, distinct.size);
    assert.equal((await listJpegs(path.join(tmp, 'choice', 'v169'))).length, distinct.size);
    const total = prepared.requests.reduce((a, r) => a + r.decodeSeconds, 0);
    assert.ok(Math.abs(total - prepared.decodeSeconds) < 1e-9, "decode time shares add up to the video's");
    assert.ok(prepared.decodeSeconds > 0);
  });

  it('sizes 16:9, 4:3, 9:16 and stored-480 frames at every short side as SPEC §2.3 says', async () => {
    const expected: Record<string, Record<string, [number, number]>> = {
      v169: { 168: [299, 168], 224: [398, 224], 336: [597, 336], 448: [796, 448], storage: [1280, 720] },
      v43: { 168: [224, 168], 224: [299, 224], 336: [448, 336], 448: [597, 448], storage: [960, 720] },
      v916: { 168: [168, 299], 224: [224, 398], 336: [336, 597], 448: [448, 796], storage: [720, 1280] },
      v480: { 168: [299, 168], 224: [399, 224], 336: [598, 336], 448: [797, 448], storage: [854, 480] },
    };
    const p = newPipeline('dims');
    for (const v of [v169, v43, v916, v480]) {
      const requests: FrameRequest[] = Object.keys(expected[v.hash]).map((s) => {
        const dims = resizeDims(v.meta.width, v.meta.height, s === 'storage' ? null : Number(s));
        return { key: s, indices: [0, 5], ...dims };
      });
      const prepared = await p.prepare(jobFor(v, requests));
      for (const [s, [w, h]] of Object.entries(expected[v.hash])) {
        for (const [k, file] of ok(prepared, s).paths.entries()) {
          const m = await sharp(file).metadata();
          assert.deepEqual([m.width, m.height], [w, h], `${v.hash} at ${s}`);
          assert.equal(await decodeFrameIndex(await fs.readFile(file)), [0, 5][k]);
        }
      }
    }
  });

  it('writes JPEG quality 85 (IJG tables), 4:2:0, baseline; the storage size is a q85 re-encode of the decoded frame', async () => {
    const p = newPipeline('quality');
    const prepared = await p.prepare(
      jobFor(v169, [
        { key: 'storage', indices: [7], width: 1280, height: 720 },
        { key: 's224', indices: [7], width: 398, height: 224 },
      ]),
    );
    for (const key of ['storage', 's224']) {
      const [file] = ok(prepared, key).paths;
      const bytes = await fs.readFile(file);
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.equal(meta.chromaSubsampling, '4:2:0', key);
      assert.equal(meta.isProgressive, false, key);
      const markers = readJpegMarkers(bytes);
      assert.deepEqual(markers.sof, [0xc0], `${key}: one baseline (SOF0) frame header`);
      assert.deepEqual(markers.tables.get(0), IJG_LUMA(85), `${key}: luminance table is IJG quality 85`);
      assert.deepEqual(markers.tables.get(1), IJG_CHROMA(85), `${key}: chrominance table is IJG quality 85`);
      assert.notDeepEqual(markers.tables.get(0), IJG_LUMA(90), 'the check can tell 85 from 90');
    }
    // An independent decode of frame 7 as raw RGB, JPEG-encoded at q85, gives the stored bytes.
    const execa = await loadExeca();
    const raw = await execa(
      'ffmpeg',
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-i',
        v169.videoPath,
        '-vf',
        'select=eq(n\\,7)',
        '-fps_mode',
        'passthrough',
        '-frames:v',
        '1',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        'pipe:1',
      ],
      { encoding: 'buffer' },
    );
    const rgb = Buffer.from(raw.stdout as Uint8Array);
    assert.equal(rgb.length, 1280 * 720 * 3);
    const reference = await jpegPipeline(rgb, { width: 1280, height: 720 }, { width: 1280, height: 720 }).toBuffer();
    const stored = await fs.readFile(ok(prepared, 'storage').paths[0]);
    assert.ok(stored.equals(reference), 'storage-size JPEG equals a q85 encode of the decoded frame');
  });

  it('writes the same JPEG bytes whichever way raw frames reach node (socket or pipe), under a tight budget', async () => {
    const requests = ['v_32', 'v_32_s224', 'v_fps2_s224'].map((c) => planned(v169, c));
    const bytes = async (transport: 'socket' | 'pipe') => {
      // Two raw frames at most: reading pauses and resumes many times in both transports.
      const p = newPipeline(`transport-${transport}`, { rawTransport: transport, maxBufferedBytes: 2 * 1280 * 720 * 3, poolSize: 1 });
      const prepared = await p.prepare(jobFor(v169, requests));
      return Promise.all(requests.map(async (r) => readJpegs(ok(prepared, r.key).paths)));
    };
    const [socket, pipe] = [await bytes('socket'), await bytes('pipe')];
    requests.forEach((r, k) => {
      assert.equal(socket[k].length, r.indices.length);
      socket[k].forEach((jpeg, j) => assert.ok(jpeg.equals(pipe[k][j]), `${r.key} frame ${r.indices[j]}`));
    });
    assert.deepEqual(await Promise.all(socket[0].map((b) => decodeFrameIndex(b))), requests[0].indices);
  });

  it('reuses the store across conditions and runs: frames already made are never decoded again', async () => {
    const storeDir = path.join(tmp, 'reuse');
    const first = new FramePipeline({ storeDir });
    const a = await first.prepare(jobFor(v169, [planned(v169, 'v_8_s224'), planned(v169, 'v_32')]));
    assert.equal(a.decodedFrames, 40);
    const before = await listJpegs(path.join(storeDir, 'v169'));
    const mtimes = await Promise.all(before.map(async (f) => (await fs.stat(path.join(storeDir, 'v169', f))).mtimeMs));

    // A later run (a new pipeline over the same store) whose ffmpeg does not even exist: it must not be started.
    const second = new FramePipeline({ storeDir, ffmpegPath: path.join(tmp, 'no-such-ffmpeg'), ffprobePath: path.join(tmp, 'no-such-ffprobe') });
    const b = await second.prepare(jobFor(v169, [{ ...planned(v169, 'v_8_s224'), key: 'other-item/v_8_s224' }, planned(v169, 'v_32')]));
    assert.equal(b.decodedFrames, 0);
    assert.equal(b.decodeSeconds, 0);
    assert.equal(b.jpegsWritten, 0);
    assert.deepEqual(ok(b, 'other-item/v_8_s224').paths, ok(a, 'v_8_s224').paths);
    assert.deepEqual(ok(b, 'v_32').paths, ok(a, 'v_32').paths);
    assert.deepEqual((await second.stats()).videosDecoded, 0);
    const after = await listJpegs(path.join(storeDir, 'v169'));
    assert.deepEqual(after, before);
    const mtimesAfter = await Promise.all(after.map(async (f) => (await fs.stat(path.join(storeDir, 'v169', f))).mtimeMs));
    assert.deepEqual(mtimesAfter, mtimes, 'no file rewritten');

    // One new size: only its frames are made (one decode), the rest are reused.
    const c = await first.prepare(jobFor(v169, [planned(v169, 'v_8_s224'), planned(v169, 'v_32_s168')]));
    const s168 = planned(v169, 'v_32_s168');
    assert.equal(c.jpegsWritten, new Set(s168.indices).size);
    assert.equal(c.jpegsReused, new Set(planned(v169, 'v_8_s224').indices).size);
    assert.ok(jpegFileUrls(ok(c, 'v_32_s168').paths).every((u) => u.startsWith('file:///')));
  });

  it('shares one decode between two jobs of the same video prepared at once', async () => {
    const p = newPipeline('same-video', { poolSize: 2 });
    const [x, y] = await Promise.all([
      p.prepare(jobFor(v169, [planned(v169, 'v_8_s224')])),
      p.prepare(jobFor(v169, [{ ...planned(v169, 'v_8_s224'), key: 'again' }])),
    ]);
    assert.deepEqual(ok(x, 'v_8_s224').paths, ok(y, 'again').paths);
    assert.equal((await p.stats()).videosDecoded, 1);
    assert.equal(x.decodedFrames + y.decodedFrames, 40);
  });

  it("fails a truncated or garbage video as `decode` with ffmpeg's message, and only that video", async () => {
    const broken = path.join(tmp, 'broken');
    const trunc = await makeCodedVideo(broken, 'truncated', { width: 640, height: 360, nFrames: 30 });
    const full = await fs.readFile(trunc.videoPath);
    await fs.writeFile(trunc.videoPath, full.subarray(0, Math.floor(full.length * 0.5)));
    const garbage = await makeCodedVideo(broken, 'garbage', { width: 640, height: 360, nFrames: 30 });
    await fs.writeFile(garbage.videoPath, Buffer.alloc(50_000, 0x5a));
    const p = newPipeline('broken-store', { poolSize: 2 });
    const req = (v: CodedVideo) => planned(v, 'v_8_s224');
    const [t, g, good] = await Promise.all([
      p.prepare(jobFor(trunc, [req(trunc), planned(trunc, 'v_1')])),
      p.prepare(jobFor(garbage, [req(garbage)])),
      p.prepare(jobFor(v169, [req(v169)])),
    ]);
    for (const [video, label] of [
      [t, 'truncated'],
      [g, 'garbage'],
    ] as const) {
      for (const r of video.requests) {
        assert.equal(r.ok, false, `${label} ${r.key}`);
        if (r.ok) continue;
        assert.equal(r.kind, 'decode');
        assert.match(r.message, /ffmpeg|ffprobe/);
        assert.match(r.message, /moov atom not found|Invalid data|invalid/i, `${label}: ffmpeg's own words: ${r.message}`);
      }
      assert.deepEqual(await listJpegs(path.join(tmp, 'broken-store', video.hash)), [], `${label}: nothing left in the store`);
    }
    const shown = await Promise.all((await readJpegs(ok(good, 'v_8_s224').paths)).map((b) => decodeFrameIndex(b)));
    assert.deepEqual(shown, planned(v169, 'v_8_s224').indices, 'the good video went on');
  });

  it('fails a video whose data ends early (moov first, mdat cut) as `decode`, writing no frame', async () => {
    const dir = path.join(tmp, 'cut');
    const v = await makeCodedVideo(dir, 'cut', { width: 640, height: 360, nFrames: 60, faststart: true });
    const full = await fs.readFile(v.videoPath);
    await fs.writeFile(v.videoPath, full.subarray(0, Math.floor(full.length * 0.6)));
    const p = newPipeline('cut-store');
    const r = await p.prepare(jobFor(v, [planned(v, 'v_32_s224')]));
    const [only] = r.requests;
    assert.equal(only.ok, false);
    if (!only.ok) {
      assert.equal(only.kind, 'decode');
      assert.ok(only.message.length > 20, only.message);
    }
    assert.deepEqual(await listJpegs(path.join(tmp, 'cut-store', 'cut')), []);
  });

  it('fails a frame-count mismatch as `decode` with both numbers, and never guesses', async () => {
    const p = newPipeline('mismatch');
    const n = v169.meta.n_frames;
    const longer = { ...v169, meta: { ...v169.meta, n_frames: n + 1, timestamps: [...v169.meta.timestamps, 99] } };
    const r1 = await p.prepare(jobFor(longer, [{ key: 'a', indices: [0, 10], width: 398, height: 224 }]));
    assert.equal(r1.requests[0].ok, false);
    if (!r1.requests[0].ok) {
      assert.equal(r1.requests[0].kind, 'decode');
      assert.match(r1.requests[0].message, new RegExp(`decoded ${n} frames but meta.json says n_frames = ${n + 1}`));
    }
    const shorter = { ...v169, meta: { ...v169.meta, n_frames: n - 1, timestamps: v169.meta.timestamps.slice(0, -1) } };
    const r2 = await p.prepare(jobFor(shorter, [{ key: 'a', indices: [0, 10], width: 398, height: 224 }]));
    assert.equal(r2.requests[0].ok, false);
    if (!r2.requests[0].ok) assert.match(r2.requests[0].message, new RegExp(`decoded ${n} frames but meta.json says n_frames = ${n - 1}`));
    assert.deepEqual(await listJpegs(path.join(tmp, 'mismatch', 'v169')), [], 'no JPEG kept from a video that does not match its meta');

    const wrongSize = { ...v169, meta: { ...v169.meta, width: 1920, height: 1080 } };
    const r3 = await p.prepare(jobFor(wrongSize, [{ key: 'a', indices: [3], width: 398, height: 224 }]));
    assert.equal(r3.requests[0].ok, false);
    if (!r3.requests[0].ok) assert.match(r3.requests[0].message, /1280x720 but meta.json says 1920x1080/);
  });

  it('reports a missing video file as `no_video`', async () => {
    const p = newPipeline('missing');
    const r = await p.prepare({
      hash: 'gone',
      videoPath: path.join(tmp, 'gone', 'video.mp4'),
      meta: v169.meta,
      requests: [{ key: 'k', indices: [1], width: 398, height: 224 }],
    });
    assert.deepEqual(
      r.requests.map((x) => [x.ok, !x.ok && x.kind]),
      [[false, 'no_video']],
    );
  });

  it('rejects a job that does not fit its meta (a caller bug, not a data failure)', async () => {
    const p = newPipeline('bad-job');
    await assert.rejects(p.prepare(jobFor(v169, [{ key: 'k', indices: [40], width: 398, height: 224 }])), /asks frame 40 of 40/);
    await assert.rejects(p.prepare(jobFor(v169, [{ key: 'k', indices: [0], width: 1920, height: 1080 }])), /asks 1920x1080/);
    await assert.rejects(
      p.prepare(
        jobFor(v169, [
          { key: 'k', indices: [0], width: 398, height: 224 },
          { key: 'k', indices: [1], width: 398, height: 224 },
        ]),
      ),
      /appears twice/,
    );
  });

  it('passes frames of an odd width and height through the size check untouched (853x481, 4:2:0)', async () => {
    // libx264 needs even sizes in 4:2:0; MPEG-4 part 2 takes odd ones, as some stored videos may have.
    const odd = path.join(tmp, 'odd.mp4');
    await execFileAsync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=853x481:rate=2',
      '-frames:v',
      '4',
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'mpeg4',
      odd,
    ]);
    const sizes: number[] = [];
    const r = await decodeSelectedFrames({
      videoPath: odd,
      width: 853,
      height: 481,
      expectedFrames: 4,
      indices: [0, 3],
      ffmpegPath: 'ffmpeg',
      ffprobePath: 'ffprobe',
      threads: 0,
      budget: new ByteBudget(64 * 2 ** 20),
      onFrame: async (_i, rgb) => {
        sizes.push(rgb.length);
      },
    });
    assert.deepEqual([r.decodedFrames, r.deliveredFrames, sizes], [4, 2, [853 * 481 * 3, 853 * 481 * 3]]);
  });

  it('frees the decoder (pool slot) once ffmpeg exits, while the last frames are still being encoded', async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const events: string[] = [];
    const decoding = decodeSelectedFrames({
      videoPath: v43.videoPath,
      width: v43.meta.width,
      height: v43.meta.height,
      expectedFrames: v43.meta.n_frames,
      indices: [0, 5],
      ffmpegPath: 'ffmpeg',
      ffprobePath: 'ffprobe',
      threads: 0,
      budget: new ByteBudget(64 * 2 ** 20),
      onDecoderExit: () => events.push('exit'),
      onFrame: async (index) => {
        events.push(`frame ${index}`);
        await gate; // an encode that is slow to finish
        events.push(`encoded ${index}`);
      },
    });
    await waitFor(
      () => events.includes('exit'),
      30_000,
      () => `ffmpeg ended on its own (events: ${events.join(', ')})`,
      { pollMs: 25 },
    ); // 30 s for a loaded host
    assert.deepEqual(events, ['frame 0', 'frame 5', 'exit'], 'ffmpeg is done before the encodes are');
    openGate();
    const r = await decoding;
    assert.deepEqual([r.decodedFrames, r.deliveredFrames], [6, 2]);
    assert.deepEqual(events.slice(3).sort(), ['encoded 0', 'encoded 5']);
  });

  it('ffmpeg runs in its own process group; stopped by a signal from outside, the video is `interrupted`, not a decode failure (issue 43)', async () => {
    // An ffmpeg that says its pid and reads its input at a tenth of its rate: still decoding when the test signals it.
    const pidFile = path.join(tmp, 'slow-ffmpeg.pid');
    const slow = path.join(tmp, 'slow-ffmpeg');
    await fs.writeFile(slow, `#!/bin/sh\necho $$ > '${pidFile}'\nexec ffmpeg -readrate 0.1 "$@"\n`, { mode: 0o755 });
    const p = newPipeline('interrupted', { ffmpegPath: slow });
    const prepared = p.prepare(jobFor(v169, [planned(v169, 'v_8_s224')]));
    let pid = 0;
    await waitFor(async () => (pid = Number(await fs.readFile(pidFile, 'utf8').catch(() => '0'))) > 0, 30_000, 'the slow ffmpeg started');
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    assert.equal(pgid, pid, 'ffmpeg leads a process group of its own');
    assert.notEqual(pgid, Number((await fs.readFile('/proc/self/stat', 'utf8')).split(') ')[1].split(' ')[2]));
    process.kill(pid, 'SIGTERM'); // as Slurm's scancel does to every process of the job
    const r = await prepared;
    assert.deepEqual(
      r.requests.map((x) => [x.ok, !x.ok && x.kind]),
      [[false, 'interrupted']],
    );
    if (!r.requests[0].ok) assert.match(r.requests[0].message, /stopped by a signal from outside \(exit (255|SIGTERM)/);
    assert.deepEqual(await listJpegs(path.join(tmp, 'interrupted', v169.hash)), [], 'nothing kept');
  });

  it('stopDecodes (a drain) ends the decode under way and starts none: `interrupted`, nothing failed or kept (issue 43)', async () => {
    // An ffmpeg that says its pid and then waits (it never decodes): the old drain waited for it for ever.
    const pids = path.join(tmp, 'held-pids');
    await fs.mkdir(pids);
    const held = path.join(tmp, 'held-ffmpeg');
    await fs.writeFile(held, `#!/bin/sh\ntouch '${pids}'/$$\nwhile :; do sleep 0.05; done\n`, { mode: 0o755 });
    const p = newPipeline('stopped', { ffmpegPath: held });
    const prepared = p.prepare(jobFor(v169, [planned(v169, 'v_8_s224')]));
    const [pid] = await waitFor(
      async () => {
        const started = (await fs.readdir(pids)).map(Number);
        return started.length > 0 ? started : null;
      },
      30_000,
      'the held ffmpeg started',
    );
    assert.equal(p.stopDecodes(), 1, 'one decode under way');
    const r = await prepared;
    assert.deepEqual(
      r.requests.map((x) => [x.ok, !x.ok && x.kind]),
      [[false, 'interrupted']],
    );
    if (!r.requests[0].ok) assert.match(r.requests[0].message, /was ended: the run is stopping/);
    assert.equal(pidAlive(pid), false, 'the held ffmpeg was ended');
    assert.deepEqual(await listJpegs(path.join(tmp, 'stopped', v169.hash)), [], 'nothing kept');
    // After the stop no decode starts: the next video is interrupted without an ffmpeg.
    const next = await p.prepare(jobFor(v43, [{ key: 'k', indices: [1], width: 299, height: 224 }]));
    assert.deepEqual(
      next.requests.map((x) => [x.ok, !x.ok && x.kind]),
      [[false, 'interrupted']],
    );
    assert.deepEqual((await fs.readdir(pids)).map(Number), [pid], 'no ffmpeg started after the stop');
  });

  it('rejects (fatal, not a per-video failure) when ffmpeg cannot be started', async () => {
    const noFfmpeg = newPipeline('no-ffmpeg', { ffmpegPath: path.join(tmp, 'no-such-ffmpeg') });
    await assert.rejects(noFfmpeg.prepare(jobFor(v43, [{ key: 'k', indices: [1], width: 299, height: 224 }])), /cannot run ffmpeg/);
  });

  it('checks the frame size inside the ffmpeg run: ffprobe only describes a mismatch', async () => {
    const noProbe = newPipeline('no-ffprobe', { ffprobePath: path.join(tmp, 'no-such-ffprobe') });
    const good = await noProbe.prepare(jobFor(v43, [{ key: 'k', indices: [1], width: 299, height: 224 }]));
    assert.deepEqual(
      good.requests.map((r) => r.ok),
      [true],
      'a video of the right size needs no ffprobe',
    );
    // Same pixel count, other shape: the raw byte stream alone could not tell these apart.
    const { width, height } = v43.meta;
    const turned = { ...v43, meta: { ...v43.meta, width: height, height: width } };
    const bad = await noProbe.prepare(jobFor(turned, [{ key: 'k', indices: [1], width: 224, height: 299 }]));
    const [only] = bad.requests;
    assert.equal(only.ok, false);
    if (!only.ok) {
      assert.equal(only.kind, 'decode');
      assert.match(only.message, new RegExp(`not ${height}x${width} as meta.json says .*cannot run ffprobe`));
    }
  });

  it('evicts least recently used unpinned frames above the cap, never pinned ones', async () => {
    const storeDir = path.join(tmp, 'evict');
    const p = new FramePipeline({ storeDir, storeCapBytes: 0 });
    const a = await p.prepare(jobFor(v43, [{ key: 'a', indices: [0, 1, 2], width: 299, height: 224 }]));
    const aPaths = ok(a, 'a').paths;
    // Cap 0: everything unpinned must go, but a's frames are pinned until released.
    for (const f of aPaths) await fs.access(f);
    a.release('a');
    const b = await p.prepare(jobFor(v916, [{ key: 'b', indices: [0, 1], width: 224, height: 398 }]));
    const bPaths = ok(b, 'b').paths;
    for (const f of bPaths) await fs.access(f);
    for (const f of aPaths) await assert.rejects(fs.access(f), /ENOENT/, `${f} was released and should be evicted`);
    const s = await p.stats();
    assert.equal(s.store.evictedFiles, 3);
    assert.equal(s.store.files, 2);
    assert.ok(s.store.overCapBytes > 0, 'pinned frames keep the store above a zero cap');
    b.release();
    // Next commit evicts b too; after a re-run, the evicted frames are simply made again.
    const c = await p.prepare(jobFor(v43, [{ key: 'a', indices: [0], width: 299, height: 224 }]));
    assert.equal(c.jpegsWritten, 1);
    for (const f of bPaths) await assert.rejects(fs.access(f));
  });

  it('holds raw frames within maxBufferedBytes on a long 720p video (1024 frames)', async function () {
    const long = await makeCodedVideo(path.join(tmp, 'long'), 'long720', { width: 1280, height: 720, nFrames: 1024, spacingMs: 800 });
    const frameBytes = 1280 * 720 * 3;
    const limit = 6 * frameBytes;
    const p = newPipeline('long-store', { maxBufferedBytes: limit, poolSize: 1 });
    const every3rd = long.meta.timestamps.map((_, i) => i).filter((i) => i % 3 === 0);
    const baseline = process.memoryUsage().rss;
    let peakRss = baseline;
    const timer = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 20);
    let prepared;
    try {
      prepared = await p.prepare(jobFor(long, [{ key: 'all', indices: every3rd, width: 299, height: 168 }]));
    } finally {
      clearInterval(timer);
    }
    assert.ok(prepared.requests[0].ok, JSON.stringify(prepared.requests[0]).slice(0, 600));
    assert.equal(prepared.decodedFrames, 1024);
    assert.equal(ok(prepared, 'all').paths.length, every3rd.length);
    const stats = await p.stats();
    assert.ok(stats.peakBufferedBytes <= limit, `peak ${stats.peakBufferedBytes} ≤ ${limit}`);
    assert.ok(stats.peakBufferedBytes >= frameBytes, 'frames did go through the budget');
    // Holding the 342 selected raw frames would be ~945 MB; the budget keeps the growth far below.
    const growthMb = (peakRss - baseline) / 1e6;
    assert.ok(growthMb < 300, `RSS grew ${growthMb.toFixed(0)} MB`);
    const paths = ok(prepared, 'all').paths;
    for (const k of [0, 100, every3rd.length - 1]) assert.equal(await decodeFrameIndex(await fs.readFile(paths[k])), every3rd[k]);
  });

  it('more decodes than the raw-frame budget holds frames (a many-core pool): every video completes, within the budget', async () => {
    // Four decodes at once share a budget of one 1280x720 frame: each waits its turn for a buffer.
    const frameBytes = 1280 * 720 * 3;
    const p = newPipeline('pool-over-budget', { poolSize: 4, ffmpegThreads: 1, maxBufferedBytes: frameBytes });
    const videos = [v169, v43, v916, v480];
    const jobs = videos.map((v) =>
      jobFor(v, [
        { ...planned(v, 'v_8_s224'), key: 'a' },
        { ...planned(v, 'v_1'), key: 'b' },
      ]),
    );
    const prepared = await Promise.all(jobs.map((j) => p.prepare(j)));
    for (const [k, v] of videos.entries()) {
      for (const r of jobs[k].requests) {
        const shown = await Promise.all((await readJpegs(ok(prepared[k], r.key).paths)).map((b) => decodeFrameIndex(b)));
        assert.deepEqual(shown, r.indices, `${v.hash} ${r.key}`);
      }
    }
    const stats = await p.stats();
    assert.ok(stats.peakBufferedBytes <= frameBytes, `peak ${stats.peakBufferedBytes} ≤ ${frameBytes}`);
  });

  it('prepareAhead keeps at most prefetchDepth videos ahead of its consumer and yields them all', async () => {
    const p = newPipeline('ahead', { poolSize: 1, prefetchDepth: 2 });
    let pulled = 0;
    let consumed = 0;
    let maxAhead = 0;
    const videos = [v43, v916, v480, v43];
    function* jobs() {
      for (const [k, v] of videos.entries()) {
        pulled++;
        maxAhead = Math.max(maxAhead, pulled - consumed);
        yield jobFor(v, [{ key: `r${k}`, indices: [k % 6], width: v.meta.width, height: v.meta.height }]);
      }
    }
    const seen: string[] = [];
    for await (const video of p.prepareAhead(jobs())) {
      consumed++;
      seen.push(video.requests[0].key);
      assert.ok(video.requests[0].ok);
      video.release();
    }
    assert.deepEqual(seen.sort(), ['r0', 'r1', 'r2', 'r3']);
    assert.ok(maxAhead <= 2, `at most 2 ahead, saw ${maxAhead}`);
  });
});

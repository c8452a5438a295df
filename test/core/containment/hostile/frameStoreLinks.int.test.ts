// Issue 42, attacks 1, 2, 3 and 5: the frame store and the inspector's store, planted. `.fpsweep/frames` as a link
// to a folder outside (the run wrote every JPEG there and a launched vLLM was given it as its media path); a frame
// planted as a link to a JPEG outside (the run reused it and sent the outside file's bytes to --endpoints), the same
// with --frames-on gpu (the helper a stand-in speaking its protocol); `.fpsweep/inspect-frames` as a link (inspect
// wrote its rebuilt frames outside). Each: refused with the path (exit 2, no stack trace) or made again inside;
// nothing outside changes and nothing of it reaches the server.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import sharp from 'sharp';
import { runCli } from '../../../helpers/captureOutput';
import { fakeFfmpeg, writeShellScript } from '../../../helpers/fakeGpuTools';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../protocols/fp/sample/fixture';
import { REPO, startStandin, withEnv, type Standin } from '../../protocols/fp/sweep/helpers';
import { PackageLayout } from '../../../../src/core/protocols/fp/package/layout';
import { fpLaunchOptions } from '../../../../src/core/protocols/fp/serving/fpServing';
import { ContainmentError } from '../../../../src/core/containment/containmentError';
import { escaped, hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const NO_STACK = /\n\s+at \S/;
const RUN = ['--bench', 'MVBench', '--conds', 'v_8_s224'];

/** The sha1 of every image the stand-in received (its inspect file). */
function sentSha1s(inspect: string): Set<string> {
  if (!fs.existsSync(inspect)) return new Set();
  const lines = fs.readFileSync(inspect, 'utf8').trim().split('\n').filter(Boolean);
  return new Set(lines.flatMap((l) => (JSON.parse(l) as { images: { sha1: string }[] }).images.map((i) => i.sha1)));
}

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');

/** The frames a run of RUN writes (video hash → file names), from a first run on a copy of its own. */
async function framesOfRun(server: Standin): Promise<Map<string, string[]>> {
  const pkg = await copySamplePackage();
  const r = await runCli(['run', '--package', pkg.root, ...RUN, '--endpoints', server.url]);
  assert.equal(r.code, 0, r.out + r.err);
  const store = new PackageLayout(pkg.root).frameStoreDir;
  const out = new Map<string, string[]>();
  for (const hash of fs.readdirSync(store))
    out.set(
      hash,
      fs.readdirSync(path.join(store, hash)).filter((n) => n.endsWith('.jpg')),
    );
  assert.ok(out.size > 0, 'the first run wrote frames');
  return out;
}

/** Plants each frame of `frames` in `root`'s store as a link to a JPEG outside of the same size (other pixels). */
async function plantFrames(root: string, frames: Map<string, string[]>, outside: string): Promise<Set<string>> {
  const store = new PackageLayout(root).frameStoreDir;
  const outsideSha1s = new Set<string>();
  for (const [hash, names] of frames) {
    fs.mkdirSync(path.join(store, hash), { recursive: true });
    for (const name of names) {
      const [, w, h] = /_(\d+)x(\d+)\.jpg$/.exec(name)!;
      const jpeg = await sharp({ create: { width: Number(w), height: Number(h), channels: 3, background: { r: 200, g: 10, b: 90 } } })
        .jpeg({ quality: 85 })
        .toBuffer();
      const victim = path.join(outside, `${hash}-${name}`);
      fs.writeFileSync(victim, jpeg);
      outsideSha1s.add(sha1(jpeg));
      fs.symlinkSync(victim, path.join(store, hash, name));
    }
  }
  return outsideSha1s;
}

/** A PYTHON that answers the GPU helper's --probe (CUDA torch) and serves its jobs: each output a JPEG of its size, every path asked logged. */
function fakeGpuHelper(dir: string, asked: string): string {
  const js = path.join(dir, 'helper.js');
  fs.writeFileSync(
    js,
    `const fs = require('fs');
const sharp = require(${JSON.stringify(path.join(REPO, 'node_modules', 'sharp'))});
if (process.argv.includes('--probe')) {
  console.log(JSON.stringify({ torch: '2.11.0', torchvision: '0.26.0', cuda: true, gpu: 'NVIDIA H100', nvjpeg: true, pillow: '11.3.0', errors: [] }));
  process.exit(0);
}
console.log(JSON.stringify({ ready: true, warm_s: 0 })); // warm at once (issue 45's protocol)
const rl = require('readline').createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on('line', (line) => {
  queue = queue.then(async () => {
    const job = JSON.parse(line);
    let jpegs = 0;
    for (const o of job.frames.flatMap((f) => f.outputs)) {
      fs.appendFileSync(${JSON.stringify(asked)}, o.path + '\\n');
      const img = sharp({ create: { width: o.width, height: o.height, channels: 3, background: { r: 10, g: 120, b: 30 } } });
      const data = await img.jpeg({ quality: 85 }).toBuffer();
      fs.writeFileSync(o.path + '.part', data, { flag: 'wx' });
      fs.renameSync(o.path + '.part', o.path);
      jpegs++;
    }
    process.stdout.write(JSON.stringify({ id: job.id, ok: true, frames: job.frames.length, jpegs, seconds: 0.01, cpu_s: 0.01 }) + '\\n');
  });
});
`,
  );
  return writeShellScript(dir, 'python-gpu', `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(js)} "$@"`);
}

describe('hostile FP package: the frame stores planted (issue 42, attacks 1, 2, 3 and 5)', function () {
  this.timeout(300_000);
  let server: Standin;
  let inspect: string;
  let frames: Map<string, string[]>;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    inspect = path.join(hostileDir('fp-hostile-inspect-'), 'inspect.jsonl');
    server = await startStandin({ env: { FPSWEEP_STANDIN_INSPECT: inspect } });
    frames = await framesOfRun(server);
  });
  after(async () => {
    await server?.stop();
    removeHostileDirs();
  });

  it('attack 1: `.fpsweep/frames` as a link outside: refused with its path (exit 2), no JPEG written outside, no vLLM given it', async () => {
    const pkg = await copySamplePackage();
    const layout = new PackageLayout(pkg.root);
    const outside = hostileDir('fp-hostile-frames-');
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'the outside folder\n');
    const before = snapshot(outside);
    fs.mkdirSync(layout.stateDir, { recursive: true });
    fs.symlinkSync(outside, layout.frameStoreDir);

    const r = await runCli(['run', '--package', pkg.root, ...RUN, '--endpoints', server.url]);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.err, new RegExp(`${escaped(layout.frameStoreDir)}: is a symbolic link`));
    assert.doesNotMatch(r.out + r.err, NO_STACK);
    assert.deepEqual(snapshot(outside), before, 'nothing written, evicted or cleaned up outside');
    // The launch options a launched vLLM would get: refused, never the outside folder as its media path.
    assert.throws(
      () => fpLaunchOptions(layout),
      (err: unknown) => err instanceof ContainmentError && err.refusedPath === layout.frameStoreDir,
    );
  });

  it('attack 2: frames planted as links to JPEGs outside are not reused: made again from the video, nothing outside sent', async () => {
    const pkg = await copySamplePackage();
    const layout = new PackageLayout(pkg.root);
    const outside = hostileDir('fp-hostile-jpegs-');
    const outsideSha1s = await plantFrames(pkg.root, frames, outside);
    const before = snapshot(outside);
    fs.rmSync(inspect, { force: true });

    const r = await runCli(['run', '--package', pkg.root, ...RUN, '--endpoints', server.url]);
    assert.equal(r.code, 0, r.out + r.err);
    const sent = sentSha1s(inspect);
    assert.ok(sent.size > 0, 'frames were sent');
    assert.deepEqual(
      [...sent].filter((s) => outsideSha1s.has(s)),
      [],
      'no outside file was sent',
    );
    assert.deepEqual(snapshot(outside), before, 'the outside files unchanged');
    for (const [hash, names] of frames) {
      for (const n of names) assert.ok(fs.lstatSync(path.join(layout.frameStoreDir, hash, n)).isFile(), `${hash}/${n} made again as a file of ours`);
    }
  });

  it('attack 3: the same with --frames-on gpu: the helper is told only paths in a fresh private staging folder inside', async () => {
    const pkg = await copySamplePackage();
    const layout = new PackageLayout(pkg.root);
    const outside = hostileDir('fp-hostile-gpujpegs-');
    const outsideSha1s = await plantFrames(pkg.root, frames, outside);
    const before = snapshot(outside);
    const tools = hostileDir('fp-hostile-gputools-');
    const asked = path.join(tools, 'asked.txt');
    // An ffmpeg that lists cuda among its -hwaccels and is the real one otherwise (videos made on the CPU path while
    // no helper is warm yet, issue 45).
    const ffmpeg = writeShellScript(tools, 'ffmpeg', `case "$*" in *-hwaccels*) exec ${JSON.stringify(fakeFfmpeg(tools, true))} ;; esac\nexec ffmpeg "$@"`);
    const env = { PYTHON: fakeGpuHelper(tools, asked), FFMPEG_BIN: ffmpeg };
    fs.rmSync(inspect, { force: true });

    const r = await withEnv(env, () => runCli(['run', '--package', pkg.root, ...RUN, '--endpoints', server.url, '--frames-on', 'gpu']));
    assert.equal(r.code, 0, r.out + r.err);
    const paths = fs.existsSync(asked) ? fs.readFileSync(asked, 'utf8').trim().split('\n') : [];
    const realStore = fs.realpathSync(layout.frameStoreDir);
    const stage = new RegExp(`^${escaped(realStore)}/[^/]+/\\.stage-${process.pid}-[0-9a-f]{16}/\\d+\\.jpg$`);
    assert.deepEqual(
      paths.filter((p) => !stage.test(p)),
      [],
      'every path the helper was told is in a private staging folder inside the store',
    );
    assert.ok(paths.length > 0, 'the helper made frames');
    const sent = sentSha1s(inspect);
    assert.deepEqual(
      [...sent].filter((s) => outsideSha1s.has(s)),
      [],
      'no outside file was sent',
    );
    assert.deepEqual(snapshot(outside), before, 'the outside files unchanged');
    for (const hash of frames.keys()) {
      assert.deepEqual(
        fs.readdirSync(path.join(layout.frameStoreDir, hash)).filter((n) => n.startsWith('.stage-')),
        [],
        'staging folders removed',
      );
    }
  });

  it('attack 5: `.fpsweep/inspect-frames` as a link outside: inspect refuses it with its path (exit 2), nothing written outside', async () => {
    const pkg = await copySamplePackage();
    const layout = new PackageLayout(pkg.root);
    const outside = hostileDir('fp-hostile-inspectframes-');
    const before = snapshot(outside);
    fs.mkdirSync(layout.stateDir, { recursive: true });
    const link = path.join(layout.stateDir, 'inspect-frames');
    fs.symlinkSync(outside, link);
    // An item with an origin row that sent frames: its frames are not in the (empty) run store, so inspect makes them.
    const item = pkg.plan.existing.find((e) => e.benchmark === 'MVBench' && e.condition === 'v_32')!;
    const r = await runCli(['inspect', '--package', pkg.root, '--benchmark', 'MVBench', '--item', item.item_id]);
    assert.equal(r.code, 2, r.out + r.err);
    assert.match(r.err, new RegExp(`${escaped(link)}: is a symbolic link`));
    assert.doesNotMatch(r.out + r.err, NO_STACK);
    assert.deepEqual(snapshot(outside), before, 'nothing written outside');
  });
});

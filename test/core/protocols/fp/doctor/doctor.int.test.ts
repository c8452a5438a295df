import { strict as assert } from 'node:assert';
import { checkProcessorCache, processorCacheItemBytes } from '../../../../../src/core/protocols/fp/doctor/processorCache';
import { formatBytes } from '../../../../../src/core/protocols/fp/prepare/progressMeter';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { doctorReport } from '../../../../../src/core/doctor/report';
import { PROTOCOLS } from '../../../../../src/core/protocols/registry';
import { doctorReportSchema, type DoctorLine, type DoctorReport } from '../../../../../src/core/doctor/schema';
import { contextFit, KV_BYTES_PER_TOKEN, checkContext } from '../../../../../src/core/protocols/fp/doctor/context';
import { parseNvidiaSmi } from '../../../../../src/core/doctor/gpus';
import { suggestWorkers } from '../../../../../src/core/protocols/fp/doctor/machine';
import { MODEL_REVISION } from '../../../../../src/core/protocols/fp/rules';
import { checkMaxSeqs } from '../../../../../src/core/protocols/fp/doctor/maxSeqs';
import { FAKE_VLLM } from '../sweep/helpers';
import { makeReportPackage } from '../report/fixture';
import { tempDir, removeTempDirs } from '../returns/tmpDirs';

const B200 = 'NVIDIA B200, 183359 MiB';
const RTX5090 = 'NVIDIA GeForce RTX 5090, 32607 MiB';
const L4 = 'NVIDIA L4, 23034 MiB';

interface FakeHost {
  gpus?: string[] | null;
  vllmVersion?: string | null;
  ffmpeg?: boolean;
  revision?: string | null;
}

/** A PATH with fake nvidia-smi / vllm / ffmpeg, and an HF cache under HF_HOME. */
async function fakeHost(h: FakeHost): Promise<NodeJS.ProcessEnv> {
  const root = await tempDir('fp-doctor-');
  const bin = path.join(root, 'bin');
  await fs.mkdir(bin);
  const script = async (name: string, body: string) => {
    await fs.writeFile(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  };
  if (h.gpus) await script('nvidia-smi', `printf '%s\\n' ${h.gpus.map((g) => `'${g}'`).join(' ')}`);
  if (h.vllmVersion) await script('vllm', `[ "$1" = "--version" ] && echo '${h.vllmVersion}'`);
  if (h.ffmpeg !== false) await script('ffmpeg', `echo 'ffmpeg version 6.1.1-fake Copyright (c) 2000-2023'`);
  const home = path.join(root, 'hf');
  if (h.revision !== null) {
    const snap = path.join(home, 'hub', 'models--Qwen--Qwen3-VL-8B-Instruct', 'snapshots', h.revision ?? MODEL_REVISION);
    await fs.mkdir(snap, { recursive: true });
    await fs.writeFile(path.join(snap, 'config.json'), '{}');
    await fs.writeFile(path.join(snap, 'model-00001-of-00004.safetensors'), '');
  }
  // Scripts run /bin/sh by absolute path; python3 is not on this PATH, so the vllm import fallback fails too.
  return { PATH: bin, HF_HOME: home, PYTHON: path.join(bin, 'no-python') };
}

const plenty = async () => 1e13;
/** `fpsweep doctor` as the verb runs it: every registered run type's hook. */
const runDoctor = (o: { env: NodeJS.ProcessEnv; packageDir?: string; cores?: number; freeBytes?: (dir: string) => Promise<number>; ramBytes?: number }) =>
  doctorReport(PROTOCOLS.all, o.packageDir ?? null, o);
const byId = (r: DoctorReport) => Object.fromEntries(r.lines.map((l) => [l.id, l])) as Record<string, DoctorLine>;

describe('doctor', function () {
  this.timeout(20000);

  it('a 4× B200 host with everything in place: no fail, context fits, and the package summary', async () => {
    const env = await fakeHost({ gpus: [B200, B200, B200, B200], vllmVersion: '0.11.0' });
    const r = await runDoctor({ env, cores: 64, freeBytes: plenty, packageDir: await makeReportPackage() });
    const l = byId(r);
    assert.equal(r.ok, true, JSON.stringify(r.lines, null, 1));
    assert.equal(l.gpus.status, 'ok');
    assert.match(l.gpus.detail, /^4 GPU\(s\): 4× NVIDIA B200, 183359 MiB/);
    assert.equal(l.vllm.status, 'ok');
    assert.match(l.vllm.detail, /vLLM 0\.11\.0/);
    assert.equal(l.model.status, 'ok');
    assert.equal(l.ffmpeg.detail, 'ffmpeg version 6.1.1-fake');
    assert.equal(l.context.status, 'ok');
    assert.match(l.context.detail, /147,456 B\/token; 65536 tokens = 9\.66 GB/);
    assert.equal(l.cores.status, 'ok');
    assert.match(l.cores.detail, /suggest WORKERS=15 per GPU/);
    assert.match(l.package.detail, /^2 benchmark\(s\) × 13 conditions: todo \d+/);
    assert.equal(l.context_refusals.status, 'ok');
    doctorReportSchema.parse(r);
  });

  it('one 32 GB card is tight (warn), a 24 GB card does not fit (fail → not ok)', async () => {
    const tight = await runDoctor({ env: await fakeHost({ gpus: [RTX5090], vllmVersion: '0.11.0' }), cores: 32, freeBytes: plenty });
    assert.equal(byId(tight).context.status, 'warn');
    assert.match(byId(tight).context.action!, /MAX_SEQS=8/);
    assert.equal(tight.ok, true);
    const small = await runDoctor({ env: await fakeHost({ gpus: [L4], vllmVersion: '0.11.0' }), cores: 32, freeBytes: plenty });
    assert.equal(byId(small).context.status, 'fail');
    assert.match(byId(small).context.action!, /never lower --max-model-len/);
    assert.equal(small.ok, false);
  });

  it('the KV arithmetic: 2·36·8·128·2 B per token, budget = memory × GPU_UTIL − 16.4 GB − 2 GB', () => {
    assert.equal(KV_BYTES_PER_TOKEN, 147456);
    const f = contextFit({ name: 'x', memoryMiB: 32607 }, 0.85);
    assert.equal(f.sequenceBytes, 65536 * 147456);
    assert.ok(Math.abs(f.kvBudgetBytes - (32607 * 1048576 * 0.85 - 16.4e9 - 2e9)) < 1);
    assert.ok(f.fullContextSequences > 1 && f.fullContextSequences < 2);
    // A higher GPU_UTIL is what the doctor suggests for the 32 GB card: it gives headroom.
    assert.ok(contextFit({ name: 'x', memoryMiB: 32607 }, 0.95).fullContextSequences > f.fullContextSequences);
    // Mixed GPUs: the smallest decides.
    assert.equal(
      checkContext(
        [
          { name: 'big', memoryMiB: 183359 },
          { name: 'small', memoryMiB: 23034 },
        ],
        0.85,
      ).status,
      'fail',
    );
  });

  it('nothing installed: GPUs, vLLM, model and ffmpeg fail with what to do', async () => {
    const r = await runDoctor({ env: await fakeHost({ gpus: null, vllmVersion: null, ffmpeg: false, revision: null }), cores: 2, freeBytes: plenty });
    const l = byId(r);
    assert.equal(r.ok, false);
    for (const id of ['gpus', 'vllm', 'model', 'ffmpeg', 'context']) assert.equal(l[id].status, 'fail', id);
    assert.match(l.gpus.detail, /nvidia-smi not found/);
    assert.match(l.vllm.action!, /pip install -r code\/requirements\.txt/);
    assert.equal(l.model.action, `huggingface-cli download Qwen/Qwen3-VL-8B-Instruct --revision ${MODEL_REVISION}`);
    assert.match(l.ffmpeg.action!, /apt-get install -y ffmpeg/);
    assert.equal(l.cores.status, 'warn');
  });

  it('another model revision in the cache is a fail that names what was found; HF_HUB_CACHE is respected', async () => {
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0', revision: 'deadbeef' });
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: plenty }));
    assert.equal(l.model.status, 'fail');
    assert.match(l.model.detail, /\(found: deadbeef\)/);
    const moved = path.join(env.HF_HOME!, 'hub');
    const l2 = byId(await runDoctor({ env: { ...env, HF_HOME: '/nonexistent', HF_HUB_CACHE: moved }, cores: 32, freeBytes: plenty }));
    assert.match(l2.model.detail, new RegExp(moved.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  });

  it('another vLLM version is a warning; VLLM_BIN names the executable', async () => {
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.10.2' });
    assert.equal(byId(await runDoctor({ env, cores: 32, freeBytes: plenty })).vllm.status, 'warn');
    const renamed = { ...env, VLLM_BIN: path.join(env.PATH!.split(':')[0], 'vllm') };
    await fs.rename(path.join(env.PATH!.split(':')[0], 'vllm'), path.join(env.PATH!.split(':')[0], 'vllm-custom'));
    renamed.VLLM_BIN = path.join(env.PATH!.split(':')[0], 'vllm-custom');
    assert.match(byId(await runDoctor({ env: renamed, cores: 32, freeBytes: plenty })).vllm.detail, /vllm-custom --version/);
  });

  it('disk: fails when the shards still to extract do not fit', async () => {
    const dir = await makeReportPackage();
    await fs.mkdir(path.join(dir, 'videos'), { recursive: true });
    await fs.writeFile(
      path.join(dir, 'videos/videos_manifest.json'),
      JSON.stringify({ n_videos: 100, shards: [{ file: 'videos_0.tar', sha256: 'a'.repeat(64), bytes: 94e9 }] }),
    );
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: async () => 50e9, packageDir: dir }));
    assert.equal(l.disk.status, 'fail');
    assert.match(l.disk.detail, /videos still to extract \(≈ 94\.0 GB, 2 of 100 videos present\)/);
  });

  it('parses nvidia-smi CSV and suggests WORKERS from cores', () => {
    assert.deepEqual(parseNvidiaSmi(`${B200}\n${RTX5090}\n\n`), [
      { name: 'NVIDIA B200', memoryMiB: 183359 },
      { name: 'NVIDIA GeForce RTX 5090', memoryMiB: 32607 },
    ]);
    assert.equal(suggestWorkers(2, 1), 6);
    assert.equal(suggestWorkers(64, 4), 15);
    assert.equal(suggestWorkers(128, 1), 126);
  });

  it('the CLI prints JSON with --json and exits 1 when a line fails', async () => {
    const env = await fakeHost({ gpus: null, vllmVersion: null });
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../../../../src/cli/main.ts'), 'doctor', '--json'], {
      env: { ...process.env, ...env, PATH: `${env.PATH}:${path.dirname(process.execPath)}` },
    });
    assert.equal(r.status, 1, r.stderr.toString());
    const rep = doctorReportSchema.parse(JSON.parse(r.stdout.toString()));
    assert.equal(rep.ok, false);
    assert.equal(rep.lines.find((x) => x.id === 'gpus')!.status, 'fail');
  });
});

/** One item on one 640×360 video of 4 frames at 0, 1, 2, 3 s: a plan whose JPEGs can be counted by hand. */
async function tinyPackage(): Promise<string> {
  const dir = await tempDir('fp-doctor-pkg-');
  const w = async (rel: string, text: string) => {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  };
  await w(
    'items/samples/MVBench.jsonl',
    JSON.stringify({ item_id: 'mv-1', benchmark: 'MVBench', video_id: 'v', question: 'Q?', options: ['a', 'b'], answer: 'A' }) + '\n',
  );
  await w('manifest/manifest_subset.jsonl', JSON.stringify({ benchmark: 'MVBench', video_id: 'v', hash: 'h1' }) + '\n');
  await w('data/store/normalized/h1/video.mp4', '');
  await w(
    'data/store/normalized/h1/meta.json',
    JSON.stringify({ hash: 'h1', width: 640, height: 360, duration_s: 3, n_frames: 4, timestamps: [0, 1, 2, 3], too_short: false }),
  );
  return dir;
}

describe('doctor: what would break or mislead a real run', function () {
  this.timeout(60000);

  it('vLLM: the stand-in reports 0.11.0 through `--version`; 0.11.x passes, another release warns (FPSWEEP_STANDIN_VERSION)', async () => {
    const host = await fakeHost({ gpus: [B200], vllmVersion: null });
    // bin/fake-vllm is a bash script running node: give it a PATH with both, but no python3 fallback.
    const env = { ...host, VLLM_BIN: FAKE_VLLM, PATH: `${host.PATH}:${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: plenty }));
    assert.equal(l.vllm.status, 'ok', l.vllm.detail);
    assert.match(l.vllm.detail, /^vLLM 0\.11\.0 \(from `.*fake-vllm --version`\)$/);
    const patch = byId(await runDoctor({ env: { ...env, FPSWEEP_STANDIN_VERSION: '0.11.2' }, cores: 32, freeBytes: plenty })).vllm;
    assert.equal(patch.status, 'ok', patch.detail);
    assert.match(patch.detail, /vLLM 0\.11\.2 .*the seed pins 0\.11\.0/);
    const other = byId(await runDoctor({ env: { ...env, FPSWEEP_STANDIN_VERSION: '0.12.1' }, cores: 32, freeBytes: plenty })).vllm;
    assert.equal(other.status, 'warn');
    assert.match(other.detail, /vLLM 0\.12\.1 .*is not 0\.11\.x/);
    assert.match(other.action!, /pip install vllm==0\.11\.0/);
  });

  it('one vLLM line per run type, each against its own pin: FP 0.11.x, AVTime target ≥ 0.18.0, judge ≥ 0.17.0', async () => {
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: plenty }));
    assert.equal(l.vllm.status, 'ok', l.vllm.detail);
    assert.match(l.vllm.title, /FP sweep \(pin 0\.11\.x\)/);
    const target = l.vllm_avtime_target;
    assert.equal(target.status, 'warn');
    assert.match(target.title, /AVTime target \(pin ≥ 0\.18\.0\)/);
    assert.match(target.detail, /vLLM 0\.11\.0 .* is not ≥ 0\.18\.0: the AVTime target needs ≥ 0\.18\.0 \(.*#36319\)/);
    assert.match(target.action!, /--target-vllm-bin/);
    assert.match(l.vllm_avtime_judge.detail, /is not ≥ 0\.17\.0: the AVTime judge needs ≥ 0\.17\.0/);
    // Their own executables: TARGET_VLLM_BIN / JUDGE_VLLM_BIN, each held to its own pin.
    const bin = env.PATH!.split(':')[0];
    await fs.writeFile(path.join(bin, 'vllm-018'), "#!/bin/sh\necho '0.18.0'\n", { mode: 0o755 });
    await fs.writeFile(path.join(bin, 'vllm-017'), "#!/bin/sh\necho '0.17.1'\n", { mode: 0o755 });
    const own = byId(
      await runDoctor({
        env: { ...env, TARGET_VLLM_BIN: path.join(bin, 'vllm-018'), JUDGE_VLLM_BIN: path.join(bin, 'vllm-017') },
        cores: 32,
        freeBytes: plenty,
      }),
    );
    assert.equal(own.vllm.status, 'ok');
    assert.equal(own.vllm_avtime_target.status, 'ok', own.vllm_avtime_target.detail);
    assert.match(own.vllm_avtime_target.detail, /vLLM 0\.18\.0 \(from `.*vllm-018 --version`\)/);
    assert.equal(own.vllm_avtime_judge.status, 'ok', own.vllm_avtime_judge.detail);
    // The 0.17 judge install would not do for the target: the pins differ.
    const swapped = byId(await runDoctor({ env: { ...env, TARGET_VLLM_BIN: path.join(bin, 'vllm-017') }, cores: 32, freeBytes: plenty }));
    assert.equal(swapped.vllm_avtime_target.status, 'warn');
  });

  it('MAX_SEQS against the KV cache: what is sent at once (min of MAX_SEQS and WORKERS) must fit; nonsense fails', async () => {
    // 183,359 MiB × 0.85 − 16.4 GB − 2 GB = 145.0 GB of KV; 65,536 × 147,456 B = 9.66 GB a sequence → 15.
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    const dflt = byId(await runDoctor({ env, cores: 32, freeBytes: plenty }));
    // The defaults (32 and 6 workers) send 6 at once: they fit.
    assert.equal(dflt.max_seqs.status, 'ok', dflt.max_seqs.detail);
    assert.match(dflt.max_seqs.detail, /^MAX_SEQS=32, WORKERS=6 \(at most 6 at once\); NVIDIA B200 holds KV for 15 full-length sequence\(s\) of 65536 tokens/);
    const many = { ...env, WORKERS: '32' };
    const l = byId(await runDoctor({ env: many, cores: 32, freeBytes: plenty }));
    assert.equal(l.max_seqs.status, 'warn');
    assert.match(l.max_seqs.action!, /MAX_SEQS=15/);
    assert.equal(byId(await runDoctor({ env: { ...many, MAX_SEQS: '8' }, cores: 32, freeBytes: plenty })).max_seqs.status, 'ok');
    assert.equal(byId(await runDoctor({ env: { ...many, MAX_SEQS: '15' }, cores: 32, freeBytes: plenty })).max_seqs.status, 'ok');
    assert.equal(byId(await runDoctor({ env: { ...many, MAX_SEQS: '16' }, cores: 32, freeBytes: plenty })).max_seqs.status, 'warn');
    assert.equal(checkMaxSeqs([{ name: 'x', memoryMiB: 183359 }], 0.85, 'lots').status, 'fail');
    // A 32 GB card at 0.85 holds one: even MAX_SEQS=8 (the seed's advice) is more than fits at full length.
    assert.match(checkMaxSeqs([{ name: 'x', memoryMiB: 32607 }], 0.85, '8', '8').action!, /MAX_SEQS=1\b/);
  });

  it('frame store disk: distinct (frame, size) JPEGs of the plan × bytes per pixel, against free space where the store lives', async () => {
    const dir = await tinyPackage();
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    // By hand, over the 13 default conditions: the 4 frames at 640×360 (v_1, v_32, v_32_s448: 360 ≤ 448 keeps the size),
    // 398×224 (v_32_s224, v_8_s224, v_128_s224 and every fps grid), 299×168 and 597×336: 16 JPEGs, 2,281,504 pixels.
    const pixels = 4 * (640 * 360 + 398 * 224 + 299 * 168 + 597 * 336);
    assert.equal(pixels, 2_281_504);
    const asked: string[] = [];
    const free = (bytes: number) => async (d: string) => (asked.push(d), bytes);
    const short = byId(await runDoctor({ env, cores: 32, freeBytes: free(100_000), packageDir: dir })).frame_store_disk;
    assert.equal(short.status, 'warn', short.detail);
    assert.match(short.detail, /^16 distinct JPEG\(s\) to serve \(2\.3 Mpixel × 0\.25 B\/pixel assumed/);
    assert.match(short.action!, /a full disk stops the run/);
    assert.ok(asked.includes(path.join(dir, '.fpsweep', 'frames')), 'free space is asked where the frame store lives');
    assert.equal(byId(await runDoctor({ env, cores: 32, freeBytes: free(600_000), packageDir: dir })).frame_store_disk.status, 'ok'); // 570,376 B needed
    // Once the store holds JPEGs, their own size per pixel replaces the assumption: 20 files of 5,000 B at 100×100.
    await fs.mkdir(path.join(dir, '.fpsweep/frames/h1'), { recursive: true });
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(dir, `.fpsweep/frames/h1/${String(100 + i).padStart(5, '0')}_100x100.jpg`), Buffer.alloc(5000));
    const measured = byId(await runDoctor({ env, cores: 32, freeBytes: free(600_000), packageDir: dir })).frame_store_disk;
    assert.equal(measured.status, 'warn'); // 2,281,504 × 0.5 B ≈ 1.14 MB > 600 kB
    assert.match(measured.detail, /0\.500 B\/pixel measured on 20 stored JPEG\(s\)/);
  });

  it("vLLM's processor cache: sized from RAM and servers, warned when the costliest videos' processed images do not fit", async () => {
    // 398×224 → smart-resized 384×224 = 336 patches × 1536 values × 2 B (bf16) + image_grid_thw 24 B.
    assert.equal(processorCacheItemBytes(398, 224), 1_032_216);
    const dir = await tinyPackage();
    const env = await fakeHost({ gpus: [B200, B200], vllmVersion: '0.11.0' });
    const line = byId(await runDoctor({ env, cores: 32, freeBytes: plenty, packageDir: dir, ramBytes: 512 * 1024 ** 3 })).processor_cache;
    assert.equal(line.status, 'ok', line.detail);
    // The tiny package's one video: 4 frames at each of 640×360, 398×224, 299×168 and 597×336, processed once each.
    const bytes =
      4 * (processorCacheItemBytes(640, 360) + processorCacheItemBytes(398, 224) + processorCacheItemBytes(299, 168) + processorCacheItemBytes(597, 336));
    assert.match(line.detail, /^--mm-processor-cache-gb 32 a server \(a quarter of 550 GB RAM over 2 server\(s\), twice each\)/);
    assert.ok(line.detail.endsWith(`take ${formatBytes(bytes)} processed`), line.detail);
    // Four hour-long videos of ~1,500 distinct 398×224 images each (~1.5 GB processed) do not fit vLLM's default 4 GiB.
    const long = 1500 * 1_032_216;
    assert.equal(checkProcessorCache([long, long, long, long], 4, 16 * 1024 ** 3).status, 'warn');
    assert.equal(checkProcessorCache([long, long, long, long], 4, 512 * 1024 ** 3).status, 'ok');
  });

  it('paths: a package reached through a symlink is reported with the real path the servers get; a frame store that cannot be a directory fails', async () => {
    const real = await tinyPackage();
    const link = path.join(await tempDir('fp-doctor-link-'), 'pkg');
    await fs.symlink(real, link);
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    const realPath = await fs.realpath(real);
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: plenty, packageDir: link }));
    assert.equal(l.package_path.status, 'warn');
    assert.equal(
      l.package_path.detail,
      `${link} is reached through a symlink; the servers are given the real path ${realPath} (for --allowed-local-media-path and every file:// URL)`,
    );
    assert.equal(l.frame_store_path.status, 'ok');
    assert.match(
      l.frame_store_path.detail,
      new RegExp(
        `^will be made at ${esc(path.join(realPath, '.fpsweep', 'frames'))}, readable and writable ` +
          `\\(given as ${esc(path.join(link, '.fpsweep', 'frames'))}\\)`,
      ),
    );
    // The real path given directly: no symlink line.
    assert.equal(byId(await runDoctor({ env, cores: 32, freeBytes: plenty, packageDir: realPath })).package_path, undefined);
    // A file where the store must be.
    await fs.mkdir(path.join(real, '.fpsweep'), { recursive: true });
    await fs.writeFile(path.join(real, '.fpsweep', 'frames'), 'not a folder');
    const bad = byId(await runDoctor({ env, cores: 32, freeBytes: plenty, packageDir: real }));
    assert.equal(bad.frame_store_path.status, 'fail');
    assert.match(bad.frame_store_path.detail, /\.fpsweep\/frames is not a directory/);
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

after(removeTempDirs);

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runDoctor } from '../../../src/core/doctor/doctor';
import { doctorReportSchema, type DoctorLine, type DoctorReport } from '../../../src/core/doctor/schema';
import { contextFit, KV_BYTES_PER_TOKEN, checkContext } from '../../../src/core/doctor/context';
import { parseNvidiaSmi } from '../../../src/core/doctor/gpus';
import { suggestWorkers } from '../../../src/core/doctor/machine';
import { MODEL_REVISION } from '../../../src/core/protocol';
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
    assert.equal(checkContext([{ name: 'big', memoryMiB: 183359 }, { name: 'small', memoryMiB: 23034 }], 0.85).status, 'fail');
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
    await fs.writeFile(path.join(dir, 'videos/videos_manifest.json'), JSON.stringify({ n_videos: 100, shards: [{ file: 'videos_0.tar', sha256: 'a'.repeat(64), bytes: 94e9 }] }));
    const env = await fakeHost({ gpus: [B200], vllmVersion: '0.11.0' });
    const l = byId(await runDoctor({ env, cores: 32, freeBytes: async () => 50e9, packageDir: dir }));
    assert.equal(l.disk.status, 'fail');
    assert.match(l.disk.detail, /videos still to extract \(≈ 94\.0 GB, 2 of 100 videos present\)/);
  });

  it('parses nvidia-smi CSV and suggests WORKERS from cores', () => {
    assert.deepEqual(parseNvidiaSmi(`${B200}\n${RTX5090}\n\n`), [{ name: 'NVIDIA B200', memoryMiB: 183359 }, { name: 'NVIDIA GeForce RTX 5090', memoryMiB: 32607 }]);
    assert.equal(suggestWorkers(2, 1), 6);
    assert.equal(suggestWorkers(64, 4), 15);
    assert.equal(suggestWorkers(128, 1), 126);
  });

  it('the CLI prints JSON with --json and exits 1 when a line fails', async () => {
    const env = await fakeHost({ gpus: null, vllmVersion: null });
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../../src/cli/main.ts'), 'doctor', '--json'], { env: { ...process.env, ...env, PATH: `${env.PATH}:${path.dirname(process.execPath)}` } });
    assert.equal(r.status, 1, r.stderr.toString());
    const rep = doctorReportSchema.parse(JSON.parse(r.stdout.toString()));
    assert.equal(rep.ok, false);
    assert.equal(rep.lines.find((x) => x.id === 'gpus')!.status, 'fail');
  });
});

after(removeTempDirs);

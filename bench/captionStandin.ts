// Captioning benchmark (not a test; issue 25, point 10), two figures, each against a baseline measured in the same run:
//   npx tsx bench/captionStandin.ts [--clips 44] [--repeat 5] [--passes 3] [--inflight 64] [--dirs 50000] [--keep]
// 1. Clips per second through the stand-in vLLM at zero model time (FPSWEEP_STANDIN_LATENCY a=0,b=0), INFLIGHT requests
//    in flight, each clip's request built as the caption run builds it (caption/request.ts) and its answer parsed and
//    normalized (answer.ts, normalize.ts). CLIPS distinct clips (the caption sample's, copied under distinct paths)
//    are first met new (the server probes each clip and sidecar with ffprobe, as vLLM decodes them), then asked
//    REPEAT times each in PASSES passes with the probes known. Floor: reading and sha256-hashing the same clips and
//    sidecars, as many in flight.
// 2. A scan of DIRS video directories (segments.json stubs) as `status` would make it: the root listed, each
//    directory's segments.json stat'ed (tracked or not), then each one read and parsed. Goal: under a second.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeCaptionSample } from '../src/core/protocols/caption/sample';
import { planCaptionSample } from '../src/core/protocols/caption/sample/plan';
import { buildCaptionRequest } from '../src/core/protocols/caption/request';
import { parseCaptionAnswer } from '../src/core/protocols/caption/answer';
import { normalizeClipEvents } from '../src/core/protocols/caption/normalize';
import { CAPTION_PROMPT_V1 } from '../src/core/protocols/caption/prompt';
import { mapBounded } from '../src/core/runner/mapBounded';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const MODEL = 'Qwen/Qwen3-Omni-30B-A3B-Thinking';
const REPO = path.resolve(__dirname, '..');

interface Clip {
  mp4: string;
  mp3: string;
  startS: number;
  endS: number;
}

/** The sample's valid clips, copied `copies` times into distinct directories of `root`. */
async function clips(root: string, copies: number): Promise<Clip[]> {
  const sample = path.join(root, 'sample');
  await makeCaptionSample({ out: sample });
  const out: Clip[] = [];
  for (let k = 0; k < copies; k++) {
    for (const v of planCaptionSample().filter((x) => x.tracked && !x.flaw)) {
      const dir = path.join(root, 'media', `${v.stem}_${k}`, 'clips');
      fs.mkdirSync(dir, { recursive: true });
      for (const c of v.clips) {
        const name = `clip_${String(c.index).padStart(4, '0')}`;
        const mp4 = path.join(dir, `${name}.mp4`);
        fs.copyFileSync(path.join(sample, v.stem, 'clips', `${name}.mp4`), mp4);
        fs.copyFileSync(path.join(sample, v.stem, 'clips', `${name}.mp3`), mp4.replace(/\.mp4$/, '.mp3'));
        out.push({ mp4, mp3: mp4.replace(/\.mp4$/, '.mp3'), startS: c.startS, endS: c.endS });
      }
    }
  }
  return out;
}

async function startServer(mediaRoot: string): Promise<{ url: string; proc: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const proc = spawn(
    path.join(REPO, 'bin', 'fake-vllm'),
    ['serve', MODEL, '--host', '127.0.0.1', '--port', String(port), '--allowed-local-media-path', mediaRoot, '--max-model-len', '65536'],
    { env: { ...process.env, FPSWEEP_STANDIN_LATENCY: 'a=0,b=0', FPSWEEP_STANDIN_OWNER_PID: String(process.pid) }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, proc };
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error('the stand-in did not come up within 60 s');
}

/** One clip as the caption run does it: the request, the answer, its events on the video's timeline. */
async function captionOne(url: string, c: Clip): Promise<number> {
  const d = c.endS - c.startS;
  const body = buildCaptionRequest({
    model: MODEL,
    clipPath: c.mp4,
    sidecarPath: c.mp3,
    prompt: CAPTION_PROMPT_V1,
    durationS: d,
    totalFrames: Math.round(d * 10),
  });
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = (await r.json()) as { choices?: { message: { content: string } }[] };
  if (r.status !== 200 || !j.choices) throw new Error(`${c.mp4}: HTTP ${r.status} ${JSON.stringify(j)}`);
  const parsed = parseCaptionAnswer(j.choices[0].message.content);
  if (!parsed.ok) throw new Error(`${c.mp4}: invalid answer: ${parsed.reason}`);
  return normalizeClipEvents(parsed.events, { start_sec: c.startS, end_sec: c.endS }).length;
}

async function floorOne(c: Clip): Promise<void> {
  for (const f of [c.mp4, c.mp3])
    createHash('sha256')
      .update(await fsp.readFile(f))
      .digest('hex');
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

async function throughput(root: string): Promise<void> {
  const distinct = Number(arg('clips', '44'));
  const repeat = Number(arg('repeat', '5'));
  const passes = Number(arg('passes', '3'));
  const inflight = Number(arg('inflight', '64'));
  const all = await clips(root, Math.ceil((distinct + 1) / 11));
  const fresh = all.slice(1, 1 + distinct);
  // The known passes ask each clip `repeat` times (the server's probes are then all cached).
  const asked = Array.from({ length: repeat }, () => fresh).flat();
  const bytes = asked.reduce((s, c) => s + fs.statSync(c.mp4).size + fs.statSync(c.mp3).size, 0);
  const { url, proc } = await startServer(path.join(root, 'media'));
  try {
    await captionOne(url, all[0]); // the server's code paths loaded before any clock starts
    const coldFloor = await timed(() => mapBounded(fresh, inflight, floorOne));
    const cold = await timed(() => mapBounded(fresh, inflight, (c) => captionOne(url, c)));
    const floor = await timed(() => mapBounded(asked, inflight, floorOne));
    const warm: number[] = [];
    for (let p = 0; p < passes; p++) warm.push(await timed(() => mapBounded(asked, inflight, (c) => captionOne(url, c))));
    const best = Math.min(...warm);
    const rate = (s: number, n: number) => (n / s).toFixed(0);
    const n = asked.length;
    console.log(`${inflight} requests in flight, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log(`floor, ${n} clips (read + sha256 clip and sidecar, ${(bytes / 1e6).toFixed(1)} MB): ${floor.toFixed(3)} s, ${rate(floor, n)} clips/s`);
    console.log(
      `stand-in, ${n} requests, probes cached (best of ${passes}): ${best.toFixed(2)} s, ${rate(best, n)} clips/s, ${(best / floor).toFixed(1)}× the floor`,
    );
    const m = fresh.length;
    console.log(`floor, ${m} clips: ${coldFloor.toFixed(3)} s, ${rate(coldFloor, m)} clips/s`);
    console.log(`stand-in, ${m} clips new to it (2 ffprobe each): ${cold.toFixed(2)} s, ${rate(cold, m)} clips/s, ${(cold / coldFloor).toFixed(0)}× the floor`);
  } finally {
    proc.kill('SIGTERM');
  }
}

const STUB = (i: number) =>
  JSON.stringify({
    input_video: `/data/videos/v${i}.mp4`,
    duration_sec: 30,
    detectors: { asr: 'whisperx', scene: 'pyscenedetect', audio_events: 'panns' },
    config: {},
    candidates: {},
    segments: [1, 2, 3].map((k) => ({
      index: k,
      clip_path: `clips/clip_000${k}.mp4`,
      start_sec: (k - 1) * 10,
      end_sec: k * 10,
      duration_sec: 10,
      boundary: { source: 'scene' },
      labels: { audio: [], visual: [], joint: [] },
    })),
  });

async function scan(root: string): Promise<void> {
  const n = Number(arg('dirs', '50000'));
  const videos = path.join(root, 'videos');
  const t = performance.now();
  await mapBounded(
    Array.from({ length: n }, (_, i) => i),
    64,
    async (i) => {
      const dir = path.join(videos, `video_${String(i).padStart(6, '0')}`);
      await fsp.mkdir(dir, { recursive: true });
      // One directory in a hundred is untracked (no segments.json).
      if (i % 100 !== 99) await fsp.writeFile(path.join(dir, 'segments.json'), STUB(i));
    },
  );
  console.log(`videos root: ${n} directories made in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  let tracked = 0;
  const list = await timed(async () => {
    const entries = (await fsp.readdir(videos, { withFileTypes: true })).filter((e) => e.isDirectory());
    const has = await mapBounded(entries, 64, (e) =>
      fsp.stat(path.join(videos, e.name, 'segments.json')).then(
        () => true,
        () => false,
      ),
    );
    tracked = has.filter(Boolean).length;
  });
  let clipsTotal = 0;
  const parse = await timed(async () => {
    const entries = (await fsp.readdir(videos, { withFileTypes: true })).filter((e) => e.isDirectory());
    const counts = await mapBounded(entries, 64, async (e) => {
      const text = await fsp.readFile(path.join(videos, e.name, 'segments.json'), 'utf8').catch(() => null);
      return text === null ? 0 : (JSON.parse(text) as { segments: unknown[] }).segments.length;
    });
    clipsTotal = counts.reduce((s, x) => s + x, 0);
  });
  const verdict = (s: number) => (s < 1 ? 'under a second' : 'OVER a second');
  console.log(`scan, list + stat segments.json: ${list.toFixed(2)} s (${tracked} tracked, ${n - tracked} untracked) ${verdict(list)}`);
  console.log(`scan, list + read + parse every segments.json: ${parse.toFixed(2)} s (${clipsTotal} clips) ${verdict(parse)}`);
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'caption-bench-'));
  console.log(`work folder: ${root}${process.argv.includes('--keep') ? ' (kept)' : ''}`);
  try {
    await throughput(root);
    await scan(root);
  } finally {
    if (!process.argv.includes('--keep')) fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exitCode = 1;
});

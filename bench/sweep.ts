// Sweep scheduling benchmark (not a test):
//   npx tsx bench/sweep.ts [--videos 24] [--scale 1] [--cores 3] [--workers 6] [--prep-ms 12] [--a 0.15] [--head 6] [--shared 1|2] [--trace] [--no-warm]
// --prep-ms 12 makes frame preparation the bottleneck (the seed: the fps ladders are decode-bound);
// --prep-ms 3 makes the servers the bottleneck. Timings are noisy on a shared 2-core machine: run twice.
//
// (1) Makespan of the runner's scheduler against the lower bound
//       LB = max(total server busy time / servers, total frame-prep time / cores)
//     on two stand-in vLLM servers at realistic latencies scaled down in time (a = 0.15 s per request,
//     b = 30 µs per uncached prompt token — Qwen3-VL-8B on one B200 — divided by --scale; prefill is
//     processor-shared like one GPU, or with --shared 2 done in admission order as vLLM's scheduler does).
//     Server busy time is b × the prompt tokens each server computed (its /metrics: prompt tokens −
//     prefix-cache hits); the stand-in's own busy-seconds counter (time with prefill work) is printed next
//     to it and agrees. The fixed `a` per request (decoding the short answer) overlaps freely and costs the
//     modelled GPU nothing, so a server-bound run needs enough requests in flight (--workers) to keep
//     the modeled GPU busy. Per server, idle time is split into ramp-up, middle and tail. Frame preparation is simulated (a timed slot
//     per video, `cores` slots, cost per distinct frame): the real decoder is benchmarked in the frame
//     pipeline's own bench; here it is the scheduler's overlap of prep and serving that is measured.
//     Target: makespan / LB ≤ 1.10.
// (2) Prompt tokens charged (computed, not served from the prefix cache) with affinity routing
//     (a video's requests to one server, a condition's items back to back) against round-robin
//     (the seed's runner) on the same plan, cold servers each time. Both are printed with the saving.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import * as net from 'node:net';
import sharp from 'sharp';
import { Scheduler, type SchedTask, type SchedJob } from '../src/core/runner/scheduler';
import { longestFirstWithinWindows } from '../src/core/protocols/fp/sweep/videoOrder';
import { RoundRobinDispatcher, type RoundRobinHooks } from './roundRobin';
import { VllmClient } from '../src/core/serving/client';
import { fpChatRequest } from '../src/core/protocols/fp/serving/fpServing';
import { parseVllmMetrics } from '../src/core/serving/metrics';
import { buildPromptText } from '../src/core/protocols/fp/rules/prompt';
import { planFrames } from '../src/core/protocols/fp/rules/plan';
import { parseCondition } from '../src/core/protocols/fp/rules/conditions';
import { MODEL } from '../src/core/protocols/fp/rules/constants';

const REPO = path.resolve(__dirname, '..');
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const N_VIDEOS = arg('videos', 24);
const SCALE = arg('scale', 1);
const CORES = arg('cores', 3);
const SERVERS = 2;
const WORKERS = arg('workers', 6);
/** Simulated prep cost per distinct (frame, size), in seconds before scaling (decode + resize + JPEG). */
const PREP_S_PER_FRAME = arg('prep-ms', 12) / 1000;
const A = arg('a', 0.15) / SCALE;
const B = 0.00003 / SCALE;
/** Stand-in prefill order: 1 = processor sharing (default), 2 = vLLM's (admission order, chunked prefill). */
const PREFILL_MODE = arg('shared', 1);
/** Videos quickest to prepare that start the run (as the sweep: two rounds of the prep slots). */
const HEAD = arg('head', 2 * CORES);
const CONDS = ['v_8_s224', 'v_32_s224', 'v_fps0.5_s224', 'v_fps1_s224'];

interface BenchVideo extends SchedJob {
  hash: string;
  prepS: number;
  /** task key → frame files and prompt */
  req: Map<string, { files: string[]; prompt: string }>;
}

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

async function makePlan(dir: string): Promise<{ videos: BenchVideo[]; frames: number }> {
  const rand = lcg(7);
  const videos: BenchVideo[] = [];
  let frames = 0;
  await fs.mkdir(dir, { recursive: true });
  for (let v = 0; v < N_VIDEOS; v++) {
    const hash = `vid${String(v).padStart(3, '0')}`;
    const duration = 20 + Math.floor(rand() * 280);
    const timestamps = Array.from({ length: duration * 2 }, (_, i) => i / 2); // stored at 2 fps
    const meta = { width: 1280, height: 720, timestamps, too_short: false };
    const nItems = 1 + Math.floor(rand() * 5);
    const tasks: SchedTask[] = [];
    const req = new Map<string, { files: string[]; prompt: string }>();
    const needed = new Set<string>();
    for (const c of CONDS) {
      const plan = planFrames(parseCondition(c), meta);
      if (plan.status !== 'send') throw new Error('plan');
      const files = plan.indices.map((i) => path.join(dir, `${hash}_${i}_${plan.width}x${plan.height}.jpg`));
      files.forEach((f) => needed.add(f));
      const tokens = plan.indices.length * 86;
      for (let k = 0; k < nItems; k++) {
        const key = `${hash}/${k}/${c}`;
        tasks.push({ key, group: `${hash}/${c}`, cost: tokens });
        req.set(key, { files, prompt: buildPromptText(`Question ${k} about ${hash}?`, ['yes', 'no', 'maybe', 'unclear']) });
      }
    }
    // Distinct JPEGs (solid colours from the frame's identity) so the prefix cache tells frames apart.
    let n = 0;
    for (const f of needed) {
      n++;
      try {
        await fs.access(f);
        continue;
      } catch {
        /* make it */
      }
      const m = /_(\d+)_(\d+)x(\d+)\.jpg$/.exec(f)!;
      const id = v * 4096 + Number(m[1]);
      await sharp({ create: { width: Number(m[2]), height: Number(m[3]), channels: 3, background: { r: id % 251, g: (id >> 3) % 241, b: (id >> 7) % 239 } } })
        .jpeg({ quality: 85 })
        .toFile(f);
    }
    frames += n;
    videos.push({ key: hash, hash, tasks, req, prepS: (n * PREP_S_PER_FRAME) / SCALE });
  }
  return { videos, frames };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function startStandins(mediaDir: string): Promise<{ urls: string[]; children: ChildProcess[] }> {
  const urls: string[] = [];
  const children: ChildProcess[] = [];
  for (let i = 0; i < SERVERS; i++) {
    const port = await freePort();
    const child = spawn(
      path.join(REPO, 'bin', 'fake-vllm'),
      [
        'serve',
        MODEL,
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--max-model-len',
        '65536',
        '--limit-mm-per-prompt',
        '{"image": 1024}',
        '--max-num-seqs',
        '32',
        '--allowed-local-media-path',
        mediaDir,
      ],
      {
        stdio: 'ignore',
        env: { ...process.env, FPSWEEP_STANDIN_LATENCY: `a=${A},b=${B},shared=${PREFILL_MODE}`, FPSWEEP_STANDIN_FAULTS: 'cacheTokens=800000' },
      },
    );
    children.push(child);
    urls.push(`http://127.0.0.1:${port}`);
  }
  for (const u of urls) {
    for (let t = 0; ; t++) {
      try {
        if ((await fetch(`${u}/health`)).status === 200) break;
      } catch {
        /* starting */
      }
      if (t > 300) throw new Error(`stand-in ${u} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { urls, children };
}

interface RunResult {
  makespanS: number;
  charged: number[];
  prompt: number[];
  prepTotalS: number;
  failed: number;
  /** Measured per server: seconds with prefill work (the stand-in's own counter). */
  busyS: number[];
  gaps: string;
  /** CPU seconds the stand-ins and this process (client + scheduler) used during the run (not at start-up). */
  standinCpuS: number[];
  benchCpuS: number;
}

/** user + system CPU seconds of a process (Linux /proc), NaN elsewhere. */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  try {
    const f = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** The stand-in's modelled-GPU busy seconds (its own metric, next to vLLM's). */
function standinBusyS(metrics: string): number {
  const m = /^fpsweep_standin_busy_seconds_total\{[^}]*\} (\S+)$/m.exec(metrics);
  return m ? Number(m[1]) : NaN;
}

/** Per server: client-side in flight, running in the engine (its /metrics), busy seconds so far. */
type Sample = { t: number; prep: number; ready: number; inflight: number[]; running: number[]; busy: number[] };

/** Busy fraction per server and in-flight counts, in 20 slices of the run. */
function printTrace(samples: Sample[]): void {
  const end = samples[samples.length - 1].t;
  const n = 20;
  let j = 0;
  for (let k = 0; k < n; k++) {
    const lo = (k * end) / n;
    const hi = ((k + 1) * end) / n;
    const a = samples[j];
    const part: Sample[] = [];
    while (j < samples.length - 1 && samples[j].t < hi) part.push(samples[j++]);
    const b = samples[j];
    if (part.length === 0) continue;
    const dt = Math.max(1e-9, b.t - a.t);
    const avg = (f: (x: Sample) => number) => (part.reduce((s, x) => s + f(x), 0) / part.length).toFixed(1);
    console.log(
      `  t=${lo.toFixed(1)}s prep ${avg((x) => x.prep)} ready ${avg((x) => x.ready)} ` +
        `inflight ${a.inflight.map((_, i) => avg((x) => x.inflight[i])).join('/')} ` +
        `running ${a.running.map((_, i) => avg((x) => x.running[i])).join('/')} ` +
        `busy ${a.busy.map((_, i) => `${Math.round((100 * (b.busy[i] - a.busy[i])) / dt)}%`).join('/')}`,
    );
  }
}

/**
 * Where each server's idle time is (makespan − busy): before its first busy sample (ramp-up), after the
 * moment the first server finished its last busy work (tail), and in between.
 */
function idleBreakdown(samples: Sample[]): string {
  const end = samples[samples.length - 1].t;
  const k = samples[0].busy.length;
  const first: number[] = [];
  const last: number[] = [];
  for (let i = 0; i < k; i++) {
    const f = samples.findIndex((s) => s.busy[i] > 0);
    let l = samples.length - 1;
    while (l > 0 && samples[l - 1].busy[i] === samples[l].busy[i]) l--;
    first.push(f > 0 ? samples[f - 1].t : 0);
    last.push(samples[l].t);
  }
  const tailFrom = Math.min(...last);
  const busyBetween = (i: number, lo: number, hi: number) => {
    const at = (t: number) => {
      let s = 0;
      while (s < samples.length - 1 && samples[s + 1].t <= t) s++;
      return samples[s].busy[i];
    };
    return at(hi) - at(lo);
  };
  return (
    Array.from({ length: k }, (_, i) => {
      const ramp = first[i];
      const tail = end - tailFrom - busyBetween(i, tailFrom, end);
      const mid = tailFrom - first[i] - busyBetween(i, first[i], tailFrom);
      return `s${i}: ramp ${ramp.toFixed(2)} mid ${mid.toFixed(2)} tail ${tail.toFixed(2)}`;
    }).join('; ') + ` (idle s; tail from ${tailFrom.toFixed(2)} s of ${end.toFixed(2)} s)`
  );
}

async function runOnce(videos: BenchVideo[], mediaDir: string, affinity: boolean): Promise<RunResult> {
  const { urls, children } = await startStandins(mediaDir);
  const clients = urls.map((url) => new VllmClient({ url, apiKey: null }, { connections: WORKERS + 2 }));
  let prepTotal = 0;
  let failed = 0;
  // Prep slots are the scheduler's prepConcurrency (= cores): each prep holds one for its duration.
  const options = { servers: urls.map((endpoint) => ({ endpoint, capacity: WORKERS })), prefetch: CORES * 2 + SERVERS * 2, prepConcurrency: CORES };
  const hooks: RoundRobinHooks<BenchVideo> = {
    prepare: async (v) => {
      prepTotal += v.prepS;
      await new Promise((r) => setTimeout(r, v.prepS * 1000));
      return true;
    },
    execute: async (task, v, server) => {
      const r = v.req.get(task.key)!;
      const body = fpChatRequest({ model: MODEL, promptText: r.prompt, images: r.files.map((f) => ({ fileUrl: pathToFileURL(f).href })) });
      const res = await clients[server.index].chat(body);
      if (!res.ok) failed++;
      return 'done';
    },
  };
  // The baseline (round-robin, no affinity) is the bench's own dispatcher, not a scheduler mode.
  const sched = affinity
    ? new Scheduler<BenchVideo>({ ...options, warmGroups: !process.argv.includes('--no-warm') }, hooks)
    : new RoundRobinDispatcher<BenchVideo>(options, hooks);
  const cpu0 = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  const standinCpu0 = await Promise.all(children.map((ch) => cpuSeconds(ch.pid)));
  const t0 = performance.now();
  const samples: Sample[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const st = sched.stats();
      const pages = await Promise.all(clients.map(async (c) => (await c.get('/metrics')).text));
      samples.push({
        t: (performance.now() - t0) / 1000,
        prep: st.preparing,
        ready: st.ready,
        inflight: st.servers.map((x) => x.inflight),
        busy: pages.map(standinBusyS),
        running: pages.map((p) => parseVllmMetrics(p).running),
      });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const jobs = videos.map((v) => ({ ...v, tasks: v.tasks.map((t) => ({ ...t })) }));
  await sched.run(affinity ? longestFirstWithinWindows(jobs, 64, HEAD) : jobs);
  const makespanS = (performance.now() - t0) / 1000;
  sampling = false;
  await sampler;
  const busyEnd = await Promise.all(clients.map(async (c) => standinBusyS((await c.get('/metrics')).text)));
  samples.push({ t: makespanS, prep: 0, ready: 0, inflight: clients.map(() => 0), busy: busyEnd, running: clients.map(() => 0) });
  if (process.argv.includes('--trace')) printTrace(samples);
  const gaps = idleBreakdown(samples);
  const charged: number[] = [];
  const prompt: number[] = [];
  for (const c of clients) {
    const m = parseVllmMetrics((await c.get('/metrics')).text);
    prompt.push(m.promptTokens);
    charged.push(m.promptTokens - m.prefixHits);
    await c.close();
  }
  const standinCpuS = (await Promise.all(children.map((ch) => cpuSeconds(ch.pid)))).map((c, i) => c - standinCpu0[i]);
  for (const ch of children) ch.kill('SIGTERM');
  return {
    makespanS,
    charged,
    prompt,
    prepTotalS: prepTotal,
    failed,
    busyS: busyEnd,
    gaps,
    standinCpuS,
    benchCpuS: (process.cpuUsage().user + process.cpuUsage().system) / 1e6 - cpu0,
  };
}

async function main() {
  const dir = path.join(os.tmpdir(), `fpsweep-bench-sweep-frames-v${N_VIDEOS}`);
  const t = performance.now();
  const { videos, frames } = await makePlan(dir);
  const nReq = videos.reduce((s, v) => s + v.tasks.length, 0);
  console.log(
    `plan: ${N_VIDEOS} videos, ${nReq} requests over ${CONDS.join(', ')}, ${frames} distinct frames ` +
      `(made in ${((performance.now() - t) / 1000).toFixed(1)} s); ${SERVERS} stand-in servers × ${WORKERS} in flight, ` +
      `latency a=${A.toFixed(4)} s + b=${B.toExponential(2)} s/token (realistic ÷ ${SCALE}), ` +
      `${CORES} prep slots at ${((PREP_S_PER_FRAME * 1000) / SCALE).toFixed(1)} ms/frame`,
  );
  const aff = await runOnce(videos, dir, true);
  const rr = await runOnce(videos, dir, false);
  for (const [name, r] of [
    ['affinity', aff],
    ['round-robin', rr],
  ] as const) {
    const busy = r.charged.map((c) => c * B);
    const lbServers = busy.reduce((s, x) => s + x, 0) / SERVERS;
    const lbPrep = r.prepTotalS / CORES;
    const lb = Math.max(lbServers, lbPrep);
    console.log(
      `${name.padEnd(11)}: makespan ${r.makespanS.toFixed(2)} s; lower bound ${lb.toFixed(2)} s ` +
        `(server busy ${busy.map((b) => b.toFixed(2)).join(' + ')} s over ${SERVERS} = ${lbServers.toFixed(2)} s; ` +
        `prep ${r.prepTotalS.toFixed(2)} s over ${CORES} = ${lbPrep.toFixed(2)} s); ` +
        `makespan/LB = ${(r.makespanS / lb).toFixed(3)}; measured busy ${r.busyS.map((b) => b.toFixed(2)).join(' + ')} s; ` +
        `prompt tokens ${r.prompt.reduce((s, x) => s + x, 0)}, ` +
        `charged ${r.charged.reduce((s, x) => s + x, 0)}${r.failed ? `; ${r.failed} FAILED requests` : ''}`,
    );
  }
  for (const [name, r] of [
    ['affinity', aff],
    ['round-robin', rr],
  ] as const)
    console.log(`idle ${name}: ${r.gaps}; CPU: stand-ins ${r.standinCpuS.map((c) => c.toFixed(1)).join(' + ')} s, bench ${r.benchCpuS.toFixed(1)} s`);
  const ca = aff.charged.reduce((s, x) => s + x, 0);
  const cr = rr.charged.reduce((s, x) => s + x, 0);
  console.log(
    `prompt tokens charged: affinity ${ca} vs round-robin ${cr}: saving ${(100 * (1 - ca / cr)).toFixed(1)}% ` +
      `(${(cr / ca).toFixed(2)}× fewer); makespan ratio round-robin/affinity ${(rr.makespanS / aff.makespanS).toFixed(2)}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

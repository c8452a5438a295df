// The GPU frame path's node side (issue 34): `helpers` long-lived helper processes (fp_gpu_frames.py --serve in
// vLLM's Python: CUDA starts once per helper, not per video), each making one video's JPEGs at a time. A job names
// every output path; the helper writes each to `path.part` and renames it, and answers one JSON line.
// Start-up off the critical path (issue 45): a helper first warms (imports, CUDA context, cuBLAS, libjpeg, pinned
// buffers) and says so with one `{"ready": true}` line; warm() starts them all while the servers start, and
// takeReady() hands out only a warm, idle helper, so the pipeline makes a video on the CPU instead of waiting.
// The ready line also says what the host has (torch, the GPU's name, pillow): `firstReady` is the run's probe of the
// GPU path (no separate `--probe` process: it cost about 12 CPU-s a run on the device, issue 45's second session).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { performance } from 'node:perf_hooks';
import { parseBoundedJson } from '../../../../io/boundedJson';

function safeJson(line: string): unknown {
  try {
    return parseBoundedJson(line);
  } catch {
    return null;
  }
}

export interface GpuFrameOutput {
  width: number;
  height: number;
  path: string;
}

export interface GpuVideoJob {
  video: string;
  /** Stored dims (meta.json): the decoded frames must have them. */
  width: number;
  height: number;
  frames: Array<{ index: number; outputs: GpuFrameOutput[] }>;
  /** The video's stored frames (meta n_frames): the helper's own NVDEC decode (fp_nvdec.py) must count exactly these,
   * as the CPU path requires of ffmpeg, or the video goes through ffmpeg. */
  storedFrames?: number;
}

export type GpuVideoResult = { ok: true; frames: number; jpegs: number; seconds: number; cpuS: number } | { ok: false; error: string };

const resultSchema = z.union([
  z.object({ ok: z.literal(true), frames: z.number(), jpegs: z.number(), seconds: z.number(), cpu_s: z.number() }).passthrough(),
  z.object({ ok: z.literal(false), error: z.string() }).passthrough(),
]);

export interface GpuMakerTools {
  pythonPath: string;
  helperPath: string;
  ffmpegPath: string;
  env?: NodeJS.ProcessEnv;
}

interface Helper {
  proc: ChildProcess;
  /** The GPU it decodes and resizes on (its CUDA_VISIBLE_DEVICES), or null: the environment's own. */
  gpu: string | null;
  /** Jobs it takes at once (`--serve --jobs N`: N threads of one process, one CUDA context). */
  capacity: number;
  /** The answers it owes, by job id. */
  pending: Map<number, (line: string | null) => void>;
  exited: boolean;
  /** It said `{"ready": true}`: warm, and takes jobs. */
  ready: boolean;
}

/** A warm helper taken for one job (takeReady), given back by makeWith. */
export interface GpuHelperLease {
  readonly helper: unknown;
}

/** An answer's job id (`id`), where it carries one. */
const answerIdSchema = z.object({ id: z.number() }).passthrough();

/** The helper's first line once warm: `{"ready": true, "warm_s": …, "torch": …, "gpu": …, "pillow": …}`. */
const readySchema = z
  .object({
    ready: z.literal(true),
    torch: z.string().nullable().optional(),
    gpu: z.string().nullable().optional(),
    pillow: z.string().nullable().optional(),
    jpeg: z.string().optional(),
  })
  .passthrough();
/** A helper that could not warm says why (`{"ready": false, "warm_error": …}`) before it exits. */
const notReadySchema = z.object({ ready: z.literal(false), warm_error: z.string().optional() }).passthrough();

/** What the first warm helper said of its host (the run's probe of the GPU path). */
export interface HelperReady {
  torch: string | null;
  gpu: string | null;
  pillow: string | null;
  /** The JPEG encoder its warm-up settled on (nvjpeg420 or pillow). */
  jpeg: string | null;
}

/** A wait for a warm helper (waitReady): the lease, or null once the maker can give none; cancel() gives up the wait. */
export interface HelperWait {
  lease: Promise<GpuHelperLease | null>;
  cancel(): void;
}

export class GpuFrameMaker {
  private readonly idle: Helper[] = [];
  /** Who waits for a warm helper: given one, or null when the maker can give none (closed, or every start failed). */
  private readonly waiting: Array<(h: Helper | null) => void> = [];
  private readonly all: Helper[] = [];
  private closed = false;
  /** warm() was called: the pool is kept full, not only filled as jobs wait. */
  private warmed = false;
  private warmFailures = 0;
  /**
   * Which videos the pipeline offers it: 'all' (each one a warm helper is idle for), or 'alternate' (every other
   * one, the rest on the CPU: a pilot under `--frames-on auto` timing both paths).
   */
  share: 'all' | 'alternate' = 'all';
  /** Seconds from spawn to ready, one a helper that became ready (for the run's log and the bench). */
  readonly warmSeconds: number[] = [];
  /** Why the last helper that failed to warm did (its warm_error, or how it ended). */
  lastWarmError: string | null = null;
  private readyInfo: ((info: HelperReady | null) => void) | null = null;
  /** What the first helper to warm said of the host, or null when none warmed (every start failed, or closed first). */
  readonly firstReady: Promise<HelperReady | null>;
  /** Helper processes kept: `helpers` job slots, up to `jobsPerHelper` a process. */
  readonly processes: number;
  private readonly capacity: number;
  private jobIds = 0;

  /**
   * `gpus`: the GPUs the helpers are spread over (CUDA ids as CUDA_VISIBLE_DEVICES names them), each helper on the
   * one with the fewest live helpers: every server's GPU shares the frames' NVDEC and resize work (and their cost to
   * its model) instead of GPU 0 taking it all. Empty: every helper gets the environment as it is.
   * `helpers`: jobs at once (the slots the pipeline counts); `jobsPerHelper`: how many of them one process takes on
   * its threads (issue 45: one import of torch and one CUDA context for several jobs, not one each).
   */
  constructor(
    private readonly tools: GpuMakerTools,
    readonly helpers: number,
    readonly gpus: readonly string[] = [],
    jobsPerHelper = 1,
  ) {
    if (!(helpers >= 1)) throw new RangeError(`helpers must be ≥ 1, got ${helpers}`);
    if (!(jobsPerHelper >= 1)) throw new RangeError(`jobs a helper must be ≥ 1, got ${jobsPerHelper}`);
    this.processes = Math.ceil(helpers / Math.min(jobsPerHelper, helpers));
    this.capacity = Math.ceil(helpers / this.processes);
    this.firstReady = new Promise((resolve) => (this.readyInfo = resolve));
  }

  private settleFirstReady(info: HelperReady | null): void {
    const settle = this.readyInfo;
    this.readyInfo = null;
    settle?.(info);
  }

  private leastUsedGpu(): string | null {
    if (!this.gpus.length) return null;
    const live = (g: string) => this.all.filter((h) => !h.exited && h.gpu === g).length;
    return this.gpus.reduce((best, g) => (live(g) < live(best) ? g : best));
  }

  private start(): Helper {
    const gpu = this.leastUsedGpu();
    const base = this.tools.env ?? process.env;
    const env = gpu === null ? base : { ...base, CUDA_VISIBLE_DEVICES: gpu };
    const spawned = performance.now();
    const capacity = this.capacity;
    const args = [this.tools.helperPath, '--serve', ...(capacity > 1 ? ['--jobs', String(capacity)] : [])];
    const proc = spawn(this.tools.pythonPath, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const h: Helper = { proc, pending: new Map(), exited: false, gpu, ready: false, capacity };
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (!h.ready) {
        // Until it is warm, a helper owes no answer: its first line says it is ready (anything else is ignored).
        const said = safeJson(line);
        const ready = readySchema.safeParse(said);
        if (ready.success) {
          h.ready = true;
          this.warmSeconds.push((performance.now() - spawned) / 1000);
          const r = ready.data;
          this.settleFirstReady({ torch: r.torch ?? null, gpu: r.gpu ?? null, pillow: r.pillow ?? null, jpeg: r.jpeg ?? null });
          for (let k = 0; k < h.capacity; k++) this.release(h);
          return;
        }
        const notReady = notReadySchema.safeParse(said);
        if (notReady.success) this.lastWarmError = notReady.data.warm_error ?? 'it said it is not ready';
        return;
      }
      // The answer of the job its id names; one without an id answers the oldest job in hand (a helper of one job).
      const said = answerIdSchema.safeParse(safeJson(line));
      const id = said.success ? said.data.id : h.pending.keys().next().value;
      const answer = id === undefined ? undefined : h.pending.get(id);
      if (id !== undefined) h.pending.delete(id);
      answer?.(line);
    });
    const gone = (err?: Error) => {
      if (h.exited) return;
      h.exited = true;
      if (!h.ready && err) this.lastWarmError = `${this.tools.pythonPath} did not start: ${err.message}`;
      const answers = [...h.pending.values()];
      h.pending.clear();
      for (const answer of answers) answer(null);
      // A helper that died holding no job (warming, or idle): whoever waits gets a fresh one.
      if (!answers.length) this.release(h);
    };
    // 'close', not 'exit': its stdout is read to the end first (a last line, a warm_error, is not lost).
    proc.on('close', () => gone());
    proc.on('error', (err) => gone(err));
    proc.stdin!.on('error', () => undefined); // EPIPE once it is gone: the 'exit' answers the job
    this.all.push(h);
    return h;
  }

  private live(): number {
    return this.all.filter((x) => !x.exited).length;
  }

  /** Every helper started now (not at the first job), so they warm while the servers start. Idempotent. */
  warm(): void {
    this.warmed = true;
    while (!this.closed && this.live() < this.processes) this.start();
  }

  /** Every helper is alive and warm (none starting or warming): a video waits for one rather than go to the CPU. */
  get allWarm(): boolean {
    const live = this.all.filter((h) => !h.exited);
    return !this.closed && live.length >= this.processes && live.every((h) => h.ready);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The next warm helper that is idle or comes free (FIFO with make()'s waits); null at once where none can come.
   * cancel() stops waiting; a helper handed over after it goes straight back.
   */
  waitReady(): HelperWait {
    const now = this.takeReady();
    if (now) return { lease: Promise.resolve(now), cancel: () => undefined };
    if (this.closed || !this.canHaveHelpers()) return { lease: Promise.resolve(null), cancel: () => undefined };
    let cancelled = false;
    let taker: ((h: Helper | null) => void) | null = null;
    const lease = new Promise<GpuHelperLease | null>((resolve) => {
      taker = (h) => {
        if (cancelled) {
          if (h) this.release(h);
          return;
        }
        resolve(h ? { helper: h } : null);
      };
      this.waiting.push(taker);
    });
    return {
      lease,
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        const k = taker ? this.waiting.indexOf(taker) : -1;
        if (k >= 0) this.waiting.splice(k, 1);
      },
    };
  }

  /** A lease taken and not used (waitReady's winner elsewhere): the helper goes back. */
  giveBack(lease: GpuHelperLease): void {
    this.release(lease.helper as Helper);
  }

  /** Some helper is alive or may still be started (the bounded replacements of helpers that never warmed). */
  private canHaveHelpers(): boolean {
    return this.live() > 0 || this.warmFailures < this.processes;
  }

  /** Job slots warm so far (of helpers alive and ready). */
  get readyCount(): number {
    return this.all.filter((h) => h.ready && !h.exited).reduce((n, h) => n + h.capacity, 0);
  }

  /** A warm, idle helper for one job, or null when none is (all busy, or still warming): never waits. */
  takeReady(): GpuHelperLease | null {
    while (this.idle.length) {
      const h = this.idle.pop()!;
      if (!h.exited) return { helper: h };
    }
    return null;
  }

  private acquire(): Promise<Helper | null> {
    const lease = this.takeReady();
    if (lease) return Promise.resolve(lease.helper as Helper);
    if (this.closed) return Promise.resolve(null);
    if (this.live() < this.processes) this.start();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Everyone waiting is told no helper will come. */
  private failWaiters(): void {
    for (const w of this.waiting.splice(0)) w(null);
  }

  private release(h: Helper): void {
    if (this.closed) return;
    if (h.exited) {
      // A dead helper's place goes to a fresh one, which comes to whoever waits once it is warm; one that died
      // before it ever warmed is replaced a bounded number of times (a broken CUDA would respawn forever).
      const replace = h.ready || this.warmFailures++ < this.processes;
      if (replace && (this.waiting.length || this.warmed) && this.live() < this.processes) this.start();
      if (this.live() === 0) {
        // None alive and none coming: whoever waits goes to the CPU; the run's probe says none warmed.
        if (!this.all.some((x) => x.ready)) this.settleFirstReady(null);
        this.failWaiters();
      }
      return;
    }
    const next = this.waiting.shift();
    if (next) next(h);
    else this.idle.push(h);
  }

  /** One video's JPEGs, on the next warm helper (waiting for one). A helper that dies or answers nonsense fails this job only. */
  async make(job: GpuVideoJob): Promise<GpuVideoResult> {
    if (this.closed) throw new Error('GPU frame maker is closed');
    const h = await this.acquire();
    if (!h) return { ok: false, error: `no GPU frames helper could start (${this.lastWarmError ?? 'the maker is closed'})` };
    return this.makeWith({ helper: h }, job);
  }

  /** One video's JPEGs on the helper `lease` holds (takeReady); the helper goes back when it answers. */
  async makeWith(lease: GpuHelperLease, job: GpuVideoJob): Promise<GpuVideoResult> {
    if (this.closed) throw new Error('GPU frame maker is closed');
    const h = lease.helper as Helper;
    try {
      const line = await new Promise<string | null>((resolve) => {
        if (h.exited) return resolve(null);
        const id = ++this.jobIds;
        h.pending.set(id, resolve);
        // 'spec': nvJPEG at 4:2:0 where the helper's warm-up found its files keep every SPEC rule, else pillow.
        const { storedFrames, ...rest } = job;
        const body = { id, ffmpeg: this.tools.ffmpegPath, quality: 85, encoder: 'spec', ...rest, stored_frames: storedFrames };
        h.proc.stdin!.write(JSON.stringify(body) + '\n');
      });
      if (line === null) return { ok: false, error: `the GPU frames helper exited (${this.tools.pythonPath} ${this.tools.helperPath})` };
      let parsed: z.infer<typeof resultSchema>;
      try {
        parsed = resultSchema.parse(parseBoundedJson(line));
      } catch {
        return { ok: false, error: `the GPU frames helper answered: ${line.slice(0, 200)}` };
      }
      return parsed.ok
        ? { ok: true, frames: parsed.frames, jpegs: parsed.jpegs, seconds: parsed.seconds, cpuS: parsed.cpu_s }
        : { ok: false, error: parsed.error };
    } finally {
      this.release(h);
    }
  }

  close(): void {
    this.closed = true;
    this.failWaiters();
    this.settleFirstReady(null);
    for (const h of this.all) {
      if (!h.exited) h.proc.stdin!.end();
    }
  }
}

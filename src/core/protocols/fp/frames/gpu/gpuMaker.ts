// The GPU frame path's node side (issue 34): `helpers` long-lived helper processes (fp_gpu_frames.py --serve in
// vLLM's Python: CUDA starts once per helper, not per video), each making one video's JPEGs at a time. A job names
// every output path; the helper writes each to `path.part` and renames it, and answers one JSON line.
// Start-up off the critical path (issue 45): a helper first warms (imports, CUDA context, cuBLAS, libjpeg, pinned
// buffers) and says so with one `{"ready": true}` line; warm() starts them all while the servers start, and
// takeReady() hands out only a warm, idle helper, so the pipeline makes a video on the CPU instead of waiting.
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
  /** The answer the helper owes for the job in hand. */
  pending: ((line: string | null) => void) | null;
  exited: boolean;
  /** It said `{"ready": true}`: warm, and takes jobs. */
  ready: boolean;
}

/** A warm helper taken for one job (takeReady), given back by makeWith. */
export interface GpuHelperLease {
  readonly helper: unknown;
}

/** The helper's first line once warm: `{"ready": true, "warm_s": …}`. */
const readySchema = z.object({ ready: z.literal(true) }).passthrough();

export class GpuFrameMaker {
  private readonly idle: Helper[] = [];
  private readonly waiting: Array<(h: Helper) => void> = [];
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

  /**
   * `gpus`: the GPUs the helpers are spread over (CUDA ids as CUDA_VISIBLE_DEVICES names them), each helper on the
   * one with the fewest live helpers: every server's GPU shares the frames' NVDEC and resize work (and their cost to
   * its model) instead of GPU 0 taking it all. Empty: every helper gets the environment as it is.
   */
  constructor(
    private readonly tools: GpuMakerTools,
    readonly helpers: number,
    readonly gpus: readonly string[] = [],
  ) {
    if (!(helpers >= 1)) throw new RangeError(`helpers must be ≥ 1, got ${helpers}`);
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
    const proc = spawn(this.tools.pythonPath, [this.tools.helperPath, '--serve'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const h: Helper = { proc, pending: null, exited: false, gpu, ready: false };
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (!h.ready) {
        // Until it is warm, a helper owes no answer: its first line says it is ready (anything else is ignored).
        if (readySchema.safeParse(safeJson(line)).success) {
          h.ready = true;
          this.warmSeconds.push((performance.now() - spawned) / 1000);
          this.release(h);
        }
        return;
      }
      const answer = h.pending;
      h.pending = null;
      answer?.(line);
    });
    const gone = () => {
      if (h.exited) return;
      h.exited = true;
      const answer = h.pending;
      h.pending = null;
      answer?.(null);
      // A helper that died warming held no job: whoever waits gets a fresh one.
      if (!answer) this.release(h);
    };
    proc.on('exit', gone);
    proc.on('error', gone);
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
    while (!this.closed && this.live() < this.helpers) this.start();
  }

  /** Helpers warm so far (alive and ready). */
  get readyCount(): number {
    return this.all.filter((h) => h.ready && !h.exited).length;
  }

  /** A warm, idle helper for one job, or null when none is (all busy, or still warming): never waits. */
  takeReady(): GpuHelperLease | null {
    while (this.idle.length) {
      const h = this.idle.pop()!;
      if (!h.exited) return { helper: h };
    }
    return null;
  }

  private acquire(): Promise<Helper> {
    const lease = this.takeReady();
    if (lease) return Promise.resolve(lease.helper as Helper);
    if (this.live() < this.helpers) this.start();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(h: Helper): void {
    if (this.closed) return;
    if (h.exited) {
      // A dead helper's place goes to a fresh one, which comes to whoever waits once it is warm; one that died
      // before it ever warmed is replaced a bounded number of times (a broken CUDA would respawn forever).
      const replace = h.ready || this.warmFailures++ < this.helpers;
      if (replace && (this.waiting.length || this.warmed) && this.live() < this.helpers) this.start();
      return;
    }
    const next = this.waiting.shift();
    if (next) next(h);
    else this.idle.push(h);
  }

  /** One video's JPEGs, on the next warm helper (waiting for one). A helper that dies or answers nonsense fails this job only. */
  async make(job: GpuVideoJob): Promise<GpuVideoResult> {
    if (this.closed) throw new Error('GPU frame maker is closed');
    return this.makeWith({ helper: await this.acquire() }, job);
  }

  /** One video's JPEGs on the helper `lease` holds (takeReady); the helper goes back when it answers. */
  async makeWith(lease: GpuHelperLease, job: GpuVideoJob): Promise<GpuVideoResult> {
    if (this.closed) throw new Error('GPU frame maker is closed');
    const h = lease.helper as Helper;
    try {
      const line = await new Promise<string | null>((resolve) => {
        if (h.exited) return resolve(null);
        h.pending = resolve;
        // 'spec': nvJPEG at 4:2:0 where the helper's warm-up found its files keep every SPEC rule, else pillow.
        const body = { ffmpeg: this.tools.ffmpegPath, quality: 85, encoder: 'spec', ...job };
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
    for (const h of this.all) {
      if (!h.exited) h.proc.stdin!.end();
    }
  }
}

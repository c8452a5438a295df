// The GPU frame path's node side (issue 34): `helpers` long-lived helper processes (fp_gpu_frames.py --serve in
// vLLM's Python: CUDA starts once per helper, not per video), each making one video's JPEGs at a time. A job names
// every output path; the helper writes each to `path.part` and renames it, and answers one JSON line.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { parseBoundedJson } from '../../../../io/boundedJson';

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
}

export class GpuFrameMaker {
  private readonly idle: Helper[] = [];
  private readonly waiting: Array<(h: Helper) => void> = [];
  private readonly all: Helper[] = [];
  private closed = false;

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
    const proc = spawn(this.tools.pythonPath, [this.tools.helperPath, '--serve'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const h: Helper = { proc, pending: null, exited: false, gpu };
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const answer = h.pending;
      h.pending = null;
      answer?.(line);
    });
    const gone = () => {
      h.exited = true;
      const answer = h.pending;
      h.pending = null;
      answer?.(null);
    };
    proc.on('exit', gone);
    proc.on('error', gone);
    proc.stdin!.on('error', () => undefined); // EPIPE once it is gone: the 'exit' answers the job
    this.all.push(h);
    return h;
  }

  private acquire(): Promise<Helper> {
    const h = this.idle.pop();
    if (h && !h.exited) return Promise.resolve(h);
    if (this.all.filter((x) => !x.exited).length < this.helpers) return Promise.resolve(this.start());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(h: Helper): void {
    if (h.exited) {
      // A dead helper's place goes to a fresh one for whoever waits.
      const next = this.waiting.shift();
      if (next && !this.closed) next(this.start());
      return;
    }
    const next = this.waiting.shift();
    if (next) next(h);
    else this.idle.push(h);
  }

  /** One video's JPEGs. A helper that dies or answers nonsense fails this job only. */
  async make(job: GpuVideoJob): Promise<GpuVideoResult> {
    if (this.closed) throw new Error('GPU frame maker is closed');
    const h = await this.acquire();
    try {
      const line = await new Promise<string | null>((resolve) => {
        h.pending = resolve;
        const body = { ffmpeg: this.tools.ffmpegPath, quality: 85, encoder: 'pillow', ...job };
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

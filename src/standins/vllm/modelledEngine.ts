// The stand-in's engine under FPSWEEP_STANDIN_LATENCY model=1: the pure step model of ./cost/gpuEngine.ts
// (vLLM 0.11's scheduler: token budget, max-num-seqs, prefix hits at admission; calibrated GPU seconds),
// played with one timer per step, each step's model seconds divided by `speed`.
import { GpuEngineModel, type EngineModelConfig } from './cost/gpuEngine';

interface Pending {
  resolve: (r: { cachedTokens: number }) => void;
  cachedTokens: number;
}

export interface ModelledJob {
  promptTokens: number;
  frames: number;
  outputTokens: number;
  /** The prefix-cache look-up, run when the request is admitted (vLLM's scheduler does it then). */
  lookup: () => { cachedTokens: number; cachedFrames: number };
}

export class ModelledEngine {
  private readonly model: GpuEngineModel<Pending>;
  private stepping = false;

  constructor(
    config: EngineModelConfig,
    private readonly speed: number,
  ) {
    this.model = new GpuEngineModel<Pending>(config);
  }

  get running(): number {
    return this.model.running;
  }

  get waiting(): number {
    return this.model.waiting;
  }

  /** Model seconds the GPU spent on steps. */
  get busySeconds(): number {
    return this.model.busyS;
  }

  run(job: ModelledJob): Promise<{ cachedTokens: number }> {
    return new Promise((resolve) => {
      const p: Pending = { resolve, cachedTokens: 0 };
      let frames = 0;
      this.model.add({
        id: p,
        promptTokens: job.promptTokens,
        frames: job.frames,
        outputTokens: Math.max(1, job.outputTokens),
        lookupCachedTokens: () => {
          const r = job.lookup();
          p.cachedTokens = r.cachedTokens;
          frames = r.cachedFrames;
          return r.cachedTokens;
        },
        cachedFrames: () => frames,
      });
      this.kick();
    });
  }

  private kick(): void {
    if (this.stepping) return;
    const step = this.model.step();
    if (!step) return;
    this.stepping = true;
    setTimeout(
      () => {
        this.stepping = false;
        for (const p of step.finished) p.resolve({ cachedTokens: p.cachedTokens });
        this.kick();
      },
      (step.durationS / this.speed) * 1000,
    );
  }
}

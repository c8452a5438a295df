// The caption backends (issue 35; seed §3: "for comparable dataset construction, keep the backend and normalization
// path fixed across the run"): vLLM serving Qwen3-Omni, or Gemini through its Files API. A root whose completed
// videos one backend made refuses a run with another unless the user says --allow-mixed. Pure.
import { UsageError } from '../../errors';

export const CAPTION_BACKENDS = ['vllm', 'gemini'] as const;
export type CaptionBackend = (typeof CAPTION_BACKENDS)[number];

/** Why a run with `backend` may not go on a root whose completed videos are `done` (by backend), or null. */
export function mixedBackendProblem(done: Readonly<Record<string, number>>, backend: CaptionBackend, allowMixed: boolean): string | null {
  if (allowMixed) return null;
  const others = Object.entries(done).filter(([b, n]) => b !== backend && n > 0);
  if (others.length === 0) return null;
  const words = others.map(([b, n]) => `${n} video${n === 1 ? '' : 's'} by ${b}`).join(', ');
  return (
    `this videos root was captioned with another backend (${words}); a run with --backend ${backend} would mix two ` +
    `backends and normalizers in one dataset. Keep --backend ${others[0][0]}, caption into a fresh root, or pass --allow-mixed: ` +
    `it captions only the videos no backend finished and keeps the ${others[0][0]} captions as they are (add --recaption to ` +
    `caption those videos again with ${backend}, replacing their captions_merged.json)`
  );
}

export function refuseMixedBackends(done: Readonly<Record<string, number>>, backend: CaptionBackend, allowMixed: boolean): void {
  const problem = mixedBackendProblem(done, backend, allowMixed);
  if (problem) throw new UsageError(problem);
}

// The caption run's servers (SPEC-AVTIME-DATA §3, Servers): given endpoints (`--base-url`, the key from
// FPSWEEP_API_KEY as every run type reads it), or one `vllm serve` per GPU group launched by the engine with
// Qwen3-Omni's flags, the videos root as the only local media path, one video and one audio per prompt, and a
// context that holds the longest clip's prompt plus the 32,768 answer tokens.
import { launchServerGroups, useEndpoints, type Fleet, type ServerSpec } from '../../serving/launcher';
import { QWEN3_OMNI_SERVE_FLAGS } from '../../serving/models/qwen3Omni/serveFlags';
import type { CaptionJob } from './jobSchema';
import type { CaptionLayout } from './layout';
import { CAPTION_DECODING } from './request';

/** The prompt's text and chat template around the media: a margin over the media's placeholders (tokens). */
export const CAPTION_PROMPT_MARGIN_TOKENS = 1024;

/** --max-model-len: the longest clip's predicted media tokens, the margin, and the answer's budget. */
export function captionContextTokens(longestMediaTokens: number): number {
  return longestMediaTokens + CAPTION_PROMPT_MARGIN_TOKENS + CAPTION_DECODING.max_tokens;
}

type Managed = Extract<CaptionJob['servers'], { mode: 'managed' }>;

/** The `serve …` arguments of group `i` (everything after the vLLM binary). */
export function captionServeArgs(m: Managed, i: number, root: string, model: string, contextTokens: number): string[] {
  const tp = m.gpuGroups[i].length;
  return [
    'serve',
    m.modelPath,
    '--served-model-name',
    model,
    '--host',
    '127.0.0.1',
    '--port',
    String(m.basePort + i),
    '--tensor-parallel-size',
    String(tp),
    '--max-model-len',
    String(contextTokens),
    '--allowed-local-media-path',
    root,
    ...QWEN3_OMNI_SERVE_FLAGS,
  ];
}

export async function captionFleet(
  job: CaptionJob,
  layout: CaptionLayout,
  contextTokens: number,
  log: (l: string) => void,
  signal?: AbortSignal,
): Promise<Fleet> {
  const m = job.servers;
  if (!m) throw new Error('internal: a vLLM caption job without servers');
  if (m.mode === 'endpoints') return useEndpoints(m.urls, { log });
  const logs = layout.runRoot.logsDir;
  const servers: ServerSpec[] = m.gpuGroups.map((gpus, i) => ({
    id: `group${i}`,
    gpus,
    port: m.basePort + i,
    logFile: layout.vllmLog(i),
    args: captionServeArgs(m, i, layout.root, job.model, contextTokens),
  }));
  return launchServerGroups({
    servers,
    places: { root: layout.root, logsDir: logs, launchParams: layout.launchParams, stateDir: layout.runRoot.stateDir },
    vllmBin: m.vllmBin,
    contextTokens,
    contextAdvice: 'the longest clip needs this context; use GPU groups with more memory (a larger --tp) or cut shorter clips',
    startTimeoutMs: m.startTimeoutS * 1000,
    log,
    signal,
  });
}

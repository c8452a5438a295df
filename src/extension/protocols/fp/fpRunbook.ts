// Frames × Pixels' part of the runbook (no vscode: tested under plain mocha): the seed's steps in order
// (prepare → doctor → dry run → pilot → timing → full run → checks → return), each one `fpsweep <verb>` on the
// runbook's package. fpSteps.ts runs them.
import type { RunbookSection } from '../../runbook/format';

export const fpRunbook: RunbookSection = {
  verbs: ['prepare', 'doctor', 'dry-run', 'run', 'status', 'stop', 'report', 'return'],
  cells() {
    const md = (value: string) => ({ kind: 'markdown' as const, value });
    const step = (value: string) => ({ kind: 'step' as const, value });
    return [
      md(
        '# Frames × Pixels runbook\nRun each step in order; ' +
          'each cell runs one `fpsweep` verb on this package and shows its output. Interrupting a cell stops its step.',
      ),
      md('## 1. Prepare data\nVerify the video shards against `videos_manifest.json`, extract them, count the videos.'),
      step('fpsweep prepare'),
      md('## 2. Doctor\nGPUs, vLLM, model revision, ffmpeg, cores, disk, and whether 65,536 tokens of context fit.'),
      step('fpsweep doctor'),
      md('## 3. Dry run\nPer benchmark × condition: todo, NA, reuse, done, no video.'),
      step('fpsweep dry-run'),
      md(
        '## 4. Pilot\nMVBench, LVBench, TimeScope under every condition, in the background worker (it survives a closed window). ' +
          'Interrupting this cell stops the worker.',
      ),
      step('fpsweep run --pilot --detach'),
      md('## 5. Pilot timing report\nPer condition: infer, infer_s/item, decode_s/item, prompt_tok/item, and the full run extrapolated.'),
      step('fpsweep report'),
      md('## 6. Full run\nAll benchmarks × conditions; rows already in the CSV are skipped.'),
      step('fpsweep run --detach'),
      md('## 7. Checks\nSPEC §6: `capped_ctx`, `n_max`, failures per benchmark × condition.'),
      step('fpsweep report'),
      md('## 8. Return\nTarball + sha256 of the results and logs; add `--upload` to push them (token from "fpsweep: Set Hugging Face token").'),
      step('fpsweep return'),
    ];
  },
};

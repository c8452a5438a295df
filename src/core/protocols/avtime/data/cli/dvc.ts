// `fpsweep avtime dvc`: flags → DvcOptions (SPEC-AVTIME-DATA §6, the seed's direct inference CLI and defaults).
import { UsageError } from '../../../../errors';
import { listFlag, numberFlag, parseVerbArgs, requiredFlag, stringFlag, type OptionSpec } from '../../../../cli/options';
import { parseGpuGroups } from '../../stages/options';
import { runDvc } from '../dvc/run';

export const summary = "LongVALE-compatible DVC inference: AVTime-Bench's target request per row, resumable";

const HELP = `usage: fpsweep avtime dvc --jsonl FILE --output-dir DIR --model-name NAME
         (--base-url URL[,URL…] | --model-path DIR [--gpus G] [--tp N])
         [--prompt-style train|jsonl] [--bench-root DIR] [--predictions-jsonl FILE]
         [--no-resume] [--no-continue-on-error] [--no-audio-in-video] [--batch-size N]

  --jsonl FILE             reference-free rows: {"id", "videos": [one absolute path], "messages",
                           "metadata": {"video_id"}}; a row with an assistant message is refused
  --output-dir DIR         raw_predictions.jsonl and summary.json (counts, errors, sha256 of inputs/outputs)
  --predictions-jsonl F    the raw answers elsewhere (default <output-dir>/raw_predictions.jsonl)
  --model-name NAME        the model's identity (recorded; the model asked for at --base-url servers)
  --base-url URL,…         running vLLM servers (key: FPSWEEP_API_KEY); rows go to whichever has room;
                           --fail-down S (FPSWEEP_FAIL_DOWN; default 120; 0 = off): every one unreachable (refused,
                           reset, /health down) for S seconds stops the run (exit 1, the URL and its words; the
                           rows left stay to do); restart them, then run the same command again: it resumes
  --model-path DIR         launch vllm serve DIR per GPU group (VLLM_BIN, or --vllm-bin B)
  --gpus G                 GPU groups, one server each (default "0,1,2,3"); --tp N (default 4)
  --base-port N            the launched servers listen on N, N+1, … (default 8011)
  --prompt-style S         train (default): the frozen prompt, --bench-root DIR's prompts/target.txt;
                           jsonl: the row's first user message with text (<video> removed)
  --no-resume              refuse an existing non-empty raw file (default: skip the ids already in it)
  --no-continue-on-error   the first failed row stops the run (default: go on with the others)
  --no-audio-in-video      send use_audio_in_video false (recorded)
  --batch-size N           requests in flight per server (default 8)

The request is AVTime-Bench's target request. Exit: 0 every row written, 2 any row failed (with or without
continuing) or bad usage/input (file:line), 1 stopped or a server failed. --no-resume --no-continue-on-error
is fail-closed. Then: fpsweep avtime normalize --target-inputs FILE --raw FILE … (see avtime normalize --help).

Rerun: resumes: ids already in the raw file are skipped, the rest (failed rows too) asked; with --no-resume it
refuses (exit 2) a raw file that is not empty.`;

export const flags = {
  jsonl: { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'file' } },
  'output-dir': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'out-dir' } },
  'predictions-jsonl': { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'out-file' } },
  'model-name': { type: 'string' },
  'base-url': { type: 'string', value: { kind: 'list' } },
  'fail-down': { type: 'string', meta: 'S', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_DOWN', default: 120 } },
  'model-path': { type: 'string' },
  gpus: { type: 'string' },
  tp: { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1024 } },
  'base-port': { type: 'string', meta: 'N', value: { kind: 'int', min: 1024, max: 65535 } },
  'vllm-bin': { type: 'string' },
  'prompt-style': { type: 'string', value: { kind: 'enum', values: ['train', 'jsonl'], default: 'train' } },
  'bench-root': { type: 'string', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'BENCH_ROOT' } },
  'no-resume': { type: 'boolean' },
  'no-continue-on-error': { type: 'boolean' },
  'no-audio-in-video': { type: 'boolean' },
  'batch-size': { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 100_000, default: 8 } },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const need = (k: string): string => requiredFlag(v, k, HELP);
  const str = (k: string): string | undefined => stringFlag(v, k);
  const style = str('prompt-style') as 'train' | 'jsonl';
  const baseUrls = listFlag(v, 'base-url');
  const modelPath = str('model-path');
  if (!baseUrls?.length === !modelPath) throw new UsageError(`give exactly one of --base-url URL[,URL…] and --model-path DIR\n\n${HELP}`);
  if (baseUrls && (v.gpus !== undefined || v.tp !== undefined || v['base-port'] !== undefined))
    throw new UsageError('--gpus, --tp and --base-port go with --model-path');
  const port = numberFlag(v, 'base-port') ?? 8011;
  const benchRoot = str('bench-root');
  const r = await runDvc(
    {
      jsonl: need('jsonl'),
      outputDir: need('output-dir'),
      predictionsJsonl: str('predictions-jsonl'),
      modelName: need('model-name'),
      baseUrls,
      modelPath,
      gpus: parseGpuGroups(str('gpus') ?? '0,1,2,3', '--gpus'),
      tp: numberFlag(v, 'tp') ?? 4,
      basePort: port,
      vllmBin: str('vllm-bin') ?? (process.env.TARGET_VLLM_BIN || undefined),
      promptStyle: style,
      benchRoot,
      resume: v['no-resume'] !== true,
      continueOnError: v['no-continue-on-error'] !== true,
      audioInVideo: v['no-audio-in-video'] !== true,
      batch: numberFlag(v, 'batch-size')!,
      failDownS: numberFlag(v, 'fail-down'),
    },
    { log: (l) => process.stderr.write(`${l}\n`) },
  );
  (r.exitCode === 0 ? process.stdout : process.stderr).write(`${r.line}\n`);
  return r.exitCode;
}

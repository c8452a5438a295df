// The "Data" runbook (issue 26 point 6; no vscode: tested under plain mocha): split → cut → caption → build-sft →
// build-grpo, each cell the `fpsweep avtime <verb> …` a user would type, with the paths of the settings (or the
// file picked) written out. The steps run through the CLI as written (dataSteps.ts); each one's output is the
// next one's input, and a step with a report opens it in the data report panel.
import * as path from 'node:path';
import type { Runbook } from '../../../runbook/format';

/** The data verbs a runbook step may name, in the order the Data runbook runs them. */
export const DATA_STEPS = ['split', 'cut', 'caption', 'build-sft', 'build-grpo'] as const;
export type DataStep = (typeof DATA_STEPS)[number];

export function isDataStep(stage: string | undefined): stage is DataStep {
  return (DATA_STEPS as readonly string[]).includes(stage ?? '');
}

/** The Data runbook's file name, in the first workspace folder. */
export const DATA_RUNBOOK_FILE = 'avtime-data.fpsweep-runbook';

/** Where each step reads and writes (as the user would write them: relative to the workspace folder, or absolute). */
export interface DataPaths {
  /** The complete-video JSONL the split reads (`--source`). */
  source: string;
  /** The folder of the source videos `cut` cuts (`--input-root`). */
  videos: string;
  /** The folder every output goes under: split/, clips/, sft/, grpo/. */
  outputRoot: string;
  /** AVTime-Bench's bench root: build-sft's prompts (`--bench-root`). */
  benchRoot: string;
  /** The caption model's server (`caption --base-url`). */
  captionBaseUrl: string;
}

/** A word of a step, quoted when it holds a space (format.ts parseStep groups quoted words). */
function word(w: string): string {
  return /[\s"']/.test(w) ? `"${w.replace(/"/g, '')}"` : w;
}

const step = (words: readonly string[]) => ({ kind: 'step' as const, value: ['fpsweep', ...words].map(word).join(' ') });
const md = (value: string) => ({ kind: 'markdown' as const, value });

/** The paths each step writes, under the output root. */
export function dataOutputs(p: DataPaths) {
  const under = (...parts: string[]) => path.posix.join(p.outputRoot.replace(/\\/g, '/'), ...parts);
  return {
    split: under('split'),
    train: under('split', 'train.jsonl'),
    clips: under('clips'),
    sft: under('sft', 'train_sft.jsonl'),
    sftReport: under('sft', 'sft_report.json'),
    grpo: under('grpo', 'train_grpo.jsonl'),
    grpoReport: under('grpo', 'grpo_report.json'),
  };
}

/** The Data runbook's cells: one markdown note and one step per data verb. */
export function dataRunbookCells(p: DataPaths): Runbook['cells'] {
  const o = dataOutputs(p);
  return [
    md(
      '# AVTime data\nThe training data of seed 004: the AVTime-50K split, clips and their captions, then the one-round SFT rows and the ' +
        'pure-BiTSC GRPO rows. Each step runs the CLI as written, in the workspace folder; outputs are immutable (a step refuses a non-empty output). ' +
        'A step with a report opens it in a panel.',
    ),
    md(
      '## D1. Split\nRetention, the row checks, 5 × 5 duration × event-count strata and the derived test set (or `--test-ids FILE` for the frozen one). ' +
        'A trial corpus of another size: `--expected-rows 0`.',
    ),
    step(['avtime', 'split', '--source', p.source, '--output-root', o.split, '--derive-test-ids', '--test-size', '300', '--expected-rows', '49977']),
    md(
      '## D2. Cut\nEach source video into clips (`segments.json`, `clips/clip_NNNN.mp4` + `.mp3`); ' +
        'the builtin cutter is not AVCut: pass yours with `--cutter CMD`.',
    ),
    step(['avtime', 'cut', '--input-root', p.videos, '--output-root', o.clips, '--cutter', 'builtin']),
    md("## D3. Caption\nEvery clip captioned by the caption model's server; `captions_merged.json` per video."),
    step(['avtime', 'caption', o.clips, '--base-url', p.captionBaseUrl]),
    md("## D4. SFT rows\nOne-round rows from the split's train rows (1,500 sampled by seeded rank), with AVTime-Bench's prompts."),
    step(['avtime', 'build-sft', '--avtime-jsonl', o.train, '--bench-root', p.benchRoot, '--output-jsonl', o.sft, '--report-json', o.sftReport]),
    md('## D5. GRPO rows\nThe SFT rows checked strictly and turned into `avtime_btsc_grpo_v1` rows, in seeded order.'),
    step(['avtime', 'build-grpo', '--input-jsonl', o.sft, '--output-jsonl', o.grpo, '--report-json', o.grpoReport]),
  ];
}

/** The value of `flag` in a step's words, or undefined. */
function flagValue(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
}

/** What the data report panel opens after the step succeeded (absolute, from `cwd`), or null: a step without a report. */
export function dataReportTarget(stage: DataStep, args: readonly string[], cwd: string): string | null {
  const at = (p: string) => path.resolve(cwd, p);
  if (stage === 'split') return at(flagValue(args, '--output-root') ?? 'outputs/avtime-50k-split'); // the verb's default
  if (stage === 'build-sft' || stage === 'build-grpo') {
    const r = flagValue(args, '--report-json');
    return r ? at(r) : null;
  }
  return null;
}

/**
 * The run root a succeeded step made (absolute, from `cwd`), for the progress tree to follow, or null: the cut's
 * output root (a cut's run root, and a caption videos root), the videos root a caption step captioned.
 */
export function dataRunRoot(stage: DataStep, args: readonly string[], cwd: string): string | null {
  if (stage === 'cut') {
    const out = flagValue(args, '--output-root');
    return out ? path.resolve(cwd, out) : null;
  }
  if (stage === 'caption') {
    const root = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1].startsWith('--')));
    return root ? path.resolve(cwd, root) : null;
  }
  return null;
}

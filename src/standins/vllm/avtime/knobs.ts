// Which model a stand-in server plays, and the AVTime knobs (documented in ../README.md).
// Target and judge servers are started by one launcher with one environment, so the role comes
// from the served model's name; FPSWEEP_STANDIN_ROLE (GPU-scopable) overrides it.
import { z } from 'zod';
import { parseKv, scoped } from '../config';
import type { ServeArgs } from '../args';
import { readCaptionKnobs, type CaptionKnobs } from './captionKnobs';

export type StandinRole = 'fp' | 'target' | 'judge';

/** The judge's name is tested first: "Qwen3.6-27B-avtime-judge-v1" names both. */
const JUDGE_NAME = /qwen3\.6|judge/i;
const TARGET_NAME = /omni|avtime/i;

export function standinRole(args: Pick<ServeArgs, 'model' | 'servedModelName'>, env: NodeJS.ProcessEnv = process.env): StandinRole {
  const forced = scoped(env, 'FPSWEEP_STANDIN_ROLE');
  if (forced !== undefined && forced !== '') {
    if (forced !== 'fp' && forced !== 'target' && forced !== 'judge') {
      throw new Error(`FPSWEEP_STANDIN_ROLE: expected fp, target or judge, got '${forced}'`);
    }
    return forced;
  }
  const names = `${args.model}\n${args.servedModelName}`;
  if (JUDGE_NAME.test(names)) return 'judge';
  if (TARGET_NAME.test(names)) return 'target';
  return 'fp';
}

const fraction = z.number().min(0).max(1);

export const TargetKnobsSchema = z.object({
  /** Share of answers (by hash) with prose lines around and between the event lines. */
  prose: fraction.default(0.25),
  /** Share of answers (by hash) with no valid event line at all. */
  noEvents: fraction.default(0.1),
  /** Share of events followed by a near-duplicate neighbour (one character off, adjacent in time). */
  nearDup: fraction.default(0.15),
  /** Fewest and most events per answer. */
  minEvents: z.number().int().min(1).default(4),
  maxEvents: z.number().int().min(1).default(12),
  // Wrong servers the pre-flight must stop (SPEC-AVTIME §3; 1 = on):
  /** As if launched with --mm-processor-kwargs '{"use_audio_in_video": true}': the audio is never fed (vLLM issue #47788). */
  serverWideAudioFlag: z.number().int().min(0).max(1).default(0),
  /** A server that finds no audio stream in the video (a 400 for use_audio_in_video). */
  noAudioStream: z.number().int().min(0).max(1).default(0),
  /** A release without the runtime media_io_kwargs field: the loader's default 32 frames. */
  noMediaIoKwargs: z.number().int().min(0).max(1).default(0),
});
export type TargetKnobs = z.infer<typeof TargetKnobsSchema>;

export const JudgeKnobsSchema = z.object({
  /** Share of requests (by hash) whose answer needs more than 512 tokens: cut (invalid JSON) at 512, whole at 4096. */
  invalidFirst: fraction.default(0),
  /** 1 = every answer is prose, never JSON (the retry pass fails too). */
  invalidAlways: z.number().int().min(0).max(1).default(0),
  /** Share of selector answers (by hash) that name an index one past the last predicted caption. */
  outOfRange: fraction.default(0),
  /** Exit abruptly when judge request N+1 arrives (0 = never); like FPSWEEP_STANDIN_FAULTS crashAfter, for the judge only. */
  crashAfter: z.number().int().min(0).default(0),
});
export type JudgeKnobs = z.infer<typeof JudgeKnobsSchema>;

export interface AvtimeKnobs {
  target: TargetKnobs;
  judge: JudgeKnobs;
  caption: CaptionKnobs;
}

export function readAvtimeKnobs(env: NodeJS.ProcessEnv = process.env): AvtimeKnobs {
  const target = TargetKnobsSchema.strict().parse(parseKv(scoped(env, 'FPSWEEP_STANDIN_TARGET') ?? '', 'FPSWEEP_STANDIN_TARGET'));
  if (target.minEvents > target.maxEvents) throw new Error('FPSWEEP_STANDIN_TARGET: minEvents must be ≤ maxEvents');
  const judge = JudgeKnobsSchema.strict().parse(parseKv(scoped(env, 'FPSWEEP_STANDIN_JUDGE') ?? '', 'FPSWEEP_STANDIN_JUDGE'));
  return { target, judge, caption: readCaptionKnobs(env) };
}

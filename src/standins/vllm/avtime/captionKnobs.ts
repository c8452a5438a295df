// The caption role's knobs (documented in ../README.md): the answers' shape, and faults keyed by the clip's path so a
// test can refuse one clip, make one unavailable for a while, or make one's first answer unparseable. A pattern is a
// JavaScript regular expression matched against the clip's path as the request names it; like every knob it may be
// GPU-scoped (`_<i>`). Counts are per server (each server counts the requests it saw).
import { z } from 'zod';
import { parseKv, scoped } from '../config';

export const CaptionNumbersSchema = z.object({
  /** How many times a clip matching FPSWEEP_STANDIN_CAPTION_503 is answered 503 before it is answered. */
  times503: z.number().int().min(0).default(2),
  /** Fewest and most events per answer. */
  minEvents: z.number().int().min(1).default(1),
  maxEvents: z.number().int().min(1).default(3),
});

export interface CaptionKnobs {
  times503: number;
  minEvents: number;
  maxEvents: number;
  /** Clips answered 400 on every request (never worth retrying). */
  refuse: RegExp | null;
  /** Clips answered 503 the first `times503` times. */
  unavailable: RegExp | null;
  /** Clips whose first answer holds no JSON (the client retries; the next answer is valid). */
  notJsonFirst: RegExp | null;
}

function pattern(env: NodeJS.ProcessEnv, name: string): RegExp | null {
  const raw = scoped(env, name);
  if (raw === undefined || raw === '') return null;
  try {
    return new RegExp(raw);
  } catch (err) {
    throw new Error(`${name}: not a regular expression: ${(err as Error).message}`);
  }
}

export function readCaptionKnobs(env: NodeJS.ProcessEnv = process.env): CaptionKnobs {
  const nums = CaptionNumbersSchema.strict().parse(parseKv(scoped(env, 'FPSWEEP_STANDIN_CAPTION') ?? '', 'FPSWEEP_STANDIN_CAPTION'));
  if (nums.minEvents > nums.maxEvents) throw new Error('FPSWEEP_STANDIN_CAPTION: minEvents must be ≤ maxEvents');
  return {
    ...nums,
    refuse: pattern(env, 'FPSWEEP_STANDIN_CAPTION_400'),
    unavailable: pattern(env, 'FPSWEEP_STANDIN_CAPTION_503'),
    notJsonFirst: pattern(env, 'FPSWEEP_STANDIN_CAPTION_NOT_JSON'),
  };
}

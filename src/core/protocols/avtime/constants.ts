// AVTime-Bench's fixed protocol values (seed Part III §7–§8, SPEC-AVTIME §3, §4, §6).

export const PROTOCOL_NAME = 'longvale_train_dvc_v1';

/** The official adjacent merge: next merges into current iff ratio > MERGE_RATIO_GT and the gap is in range. */
export const MERGE_RATIO_GT = 0.98;
/** `next.start_pct − current.end_pct` must lie in [MIN, MAX] (inclusive) for a merge. */
export const MERGE_GAP_PCT = { min: -1, max: 1 } as const;

/** Percent buckets are two ASCII digits, 00..99, inclusive. */
export const MAX_PCT = 99;

/** Target decoding of the canonical run (seed §8 table). */
export const TARGET_DECODING = {
  temperature: 0,
  top_p: 1,
  top_k: 20,
  repetition_penalty: 1,
  max_tokens: 8192,
  seed: 1234,
} as const;

export type JudgePass = 1 | 2;
/** Judge output ceiling per pass: the first pass at 512 tokens, the retry pass at 4,096 (seed §8). */
export const JUDGE_MAX_TOKENS: Readonly<Record<JudgePass, number>> = { 1: 512, 2: 4096 };
export const JUDGE_TEMPERATURE = 0;

/** The six summary keys, in the seed's table order. */
export const SCORE_KEYS = ['T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V'] as const;
export type ScoreKey = (typeof SCORE_KEYS)[number];

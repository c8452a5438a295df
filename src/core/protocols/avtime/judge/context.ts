// The judge server's own context length (SPEC-AVTIME §6): its requests are short, so it gets far less than
// the target's 65,536 (more KV cache for the 32 requests in flight, and it starts on fewer GPUs). Derived
// from what a judge request can hold, each part an upper bound:
import { JUDGE_MAX_TOKENS, TARGET_DECODING } from '../constants';

export const JUDGE_CONTEXT_PARTS = {
  /** The instructions and the axis rubric: the default templates are under 1 kB, and a byte-level BPE token covers ≥ 1 byte. */
  template: 1024,
  /** The reference captions (LongVALE's, a sentence or two each; a t2e query lists those active at one instant). */
  references: 2048,
  /**
   * The predicted captions shown: lines of one target answer with their timestamps dropped, so never more
   * tokens than the target may generate (its max_tokens).
   */
  predictions: TARGET_DECODING.max_tokens,
  /** The answer: the retry pass's ceiling (pass 1 asks 512). */
  answer: JUDGE_MAX_TOKENS[2],
} as const;

/** The parts' sum (15,360) rounded up to a multiple of 4,096: 16,384. */
export const JUDGE_MAX_MODEL_LEN = roundUp(
  Object.values(JUDGE_CONTEXT_PARTS).reduce((a, b) => a + b, 0),
  4096,
);

function roundUp(n: number, step: number): number {
  return Math.ceil(n / step) * step;
}

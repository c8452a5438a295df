// How far the engine's prompt-token prediction (protocol/qwenTokens) is from what the servers
// counted: usage.prompt_tokens − meta.predicted_prompt_tokens over the answered raw records. The
// image part is exact to transformers' processor; the text part is an estimate (bytes / 4), so the
// first real pilot calibrates it here.
import { z } from 'zod';

export const predictionErrorSchema = z.object({
  /** Answered records with both numbers. */
  count: z.number().int(),
  /** Mean, min and max of usage.prompt_tokens − predicted (tokens); null when count is 0. */
  mean: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** Mean of (usage.prompt_tokens − predicted) / predicted, and the largest |relative error|. */
  meanRelative: z.number().nullable(),
  maxAbsRelative: z.number().nullable(),
});

export const tokenPredictionSchema = predictionErrorSchema.extend({
  method: z.string(),
  /** Answered records lacking usage.prompt_tokens or the prediction (written before it was kept). */
  withoutPrediction: z.number().int(),
  byCondition: z.array(predictionErrorSchema.extend({ condition: z.string() })),
});
export type TokenPrediction = z.infer<typeof tokenPredictionSchema>;
type PredictionError = z.infer<typeof predictionErrorSchema>;

class ErrorSums {
  count = 0;
  sum = 0;
  sumRel = 0;
  min = Infinity;
  max = -Infinity;
  maxAbsRel = 0;
  add(actual: number, predicted: number): void {
    const d = actual - predicted;
    const rel = predicted > 0 ? d / predicted : 0;
    this.count++;
    this.sum += d;
    this.sumRel += rel;
    this.min = Math.min(this.min, d);
    this.max = Math.max(this.max, d);
    this.maxAbsRel = Math.max(this.maxAbsRel, Math.abs(rel));
  }
  result(): PredictionError {
    const n = this.count;
    return {
      count: n,
      mean: n ? this.sum / n : null,
      min: n ? this.min : null,
      max: n ? this.max : null,
      meanRelative: n ? this.sumRel / n : null,
      maxAbsRelative: n ? this.maxAbsRel : null,
    };
  }
}

/** Accumulates answered records one at a time (the raw scan streams ~230k of them). */
export class TokenPredictionAcc {
  private readonly all = new ErrorSums();
  private readonly byCondition = new Map<string, ErrorSums>();
  private without = 0;

  /** One answered (status ok) record. */
  add(condition: string, actual: number | null | undefined, predicted: number | null | undefined): void {
    if (typeof actual !== 'number' || typeof predicted !== 'number') {
      this.without++;
      return;
    }
    this.all.add(actual, predicted);
    let c = this.byCondition.get(condition);
    if (!c) this.byCondition.set(condition, (c = new ErrorSums()));
    c.add(actual, predicted);
  }

  result(): TokenPrediction {
    return {
      method:
        "over answered raw records: usage.prompt_tokens (the server's count) − meta.predicted_prompt_tokens " +
        "(the engine's: images exact to the processor, text estimated at 4 bytes a token plus 8 template tokens); " +
        'relative = that difference / predicted',
      ...this.all.result(),
      withoutPrediction: this.without,
      byCondition: [...this.byCondition.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([condition, s]) => ({ condition, ...s.result() })),
    };
  }
}

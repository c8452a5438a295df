// One results-CSV line from a raw record, in the column order of the CSV's own header (SPEC §4):
// columns we do not know stay empty; NA rows leave pred/correct/n_frames/prompt_tokens/latency_s empty
// because the raw record has null there.
import { stringify } from 'csv-stringify/sync';
import type { RawRecord } from '../package/schemas';

function cell(v: string | number | null | undefined): string {
  return v === null || v === undefined ? '' : String(v);
}

/** latency to the millisecond: enough for timing tables, short in the CSV. */
function seconds(v: number | null): string {
  return v === null ? '' : (Math.round(v * 1000) / 1000).toString();
}

export function csvValues(raw: RawRecord): Record<string, string> {
  return {
    benchmark: raw.benchmark,
    item_id: raw.item_id,
    condition: raw.condition,
    status: raw.status,
    pred: cell(raw.pred),
    answer: raw.answer,
    correct: cell(raw.correct),
    n_frames: cell(raw.meta.n_frames_used),
    prompt_tokens: cell(raw.usage.prompt_tokens),
    latency_s: seconds(raw.latency_s),
    ts: raw.ts,
  };
}

/** The whole line (with its newline) for a CSV whose header is `header`. */
export function csvLine(header: readonly string[], raw: RawRecord): string {
  const v = csvValues(raw);
  const record = header.map((h) => v[h] ?? '');
  return stringify([record], { record_delimiter: '\n' });
}

export function csvHeaderLine(header: readonly string[]): string {
  return stringify([header as string[]], { record_delimiter: '\n' });
}

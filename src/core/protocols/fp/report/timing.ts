// The seed's §4 pilot timing table, exactly its Python aggregation:
//   t[cond] += [infer, infer_s, decode_s, prompt_tokens] over every line of p1_timing.jsonl,
//   then per condition (sorted by name): s/max(n,1), d/max(n,1), tok/max(n,1), printed as
//   f"{k:16s} infer={n:5d}  infer_s/item={s/max(n,1):6.2f}  decode_s/item={d/max(n,1):6.2f}  prompt_tok/item={tok/max(n,1):8.0f}"
// Sums are taken in file order with IEEE doubles, as Python does.
import type { TimingRecord } from '../package/schemas';
import type { TimingRow } from './schema';
import { pyFixedWidth } from './pyFormat';

export function seedTimingLine(k: string, n: number, s: number, d: number, tok: number): string {
  const m = Math.max(n, 1);
  return (
    `${k.padEnd(16)} infer=${String(n).padStart(5)}  infer_s/item=${pyFixedWidth(s / m, 6, 2)}  ` +
    `decode_s/item=${pyFixedWidth(d / m, 6, 2)}  prompt_tok/item=${pyFixedWidth(tok / m, 8, 0)}`
  );
}

/** Python's sorted() on str keys: by code point. */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

export function aggregateTiming(records: readonly TimingRecord[]): TimingRow[] {
  const t = new Map<string, [number, number, number, number]>();
  for (const r of records) {
    let acc = t.get(r.condition);
    if (!acc) t.set(r.condition, (acc = [0, 0, 0, 0]));
    acc[0] += r.infer;
    acc[1] += r.infer_s;
    acc[2] += r.decode_s;
    acc[3] += r.prompt_tokens;
  }
  return [...t.entries()]
    .sort((a, b) => byCodePoint(a[0], b[0]))
    .map(([k, [n, s, d, tok]]) => {
      const m = Math.max(n, 1);
      return {
        condition: k,
        infer: n,
        infer_s: s,
        decode_s: d,
        prompt_tokens: tok,
        infer_s_per_item: s / m,
        decode_s_per_item: d / m,
        prompt_tok_per_item: tok / m,
        text: seedTimingLine(k, n, s, d, tok),
      };
    });
}

// Compares qwenTokens.ts with transformers' own Qwen2-VL image processor, from the JSON that
// bench/device/qwen_tokens_transformers.py wrote (on the device machine) or its committed subset:
//   npx tsx bench/device/compareQwenTokens.ts [FILE]   (default test/fixtures/qwen_tokens_transformers.json)
// Prints each kind of size checked and the mismatches (dims and tokens); exits 1 on any mismatch.
// Works with whichever qwenResizedDims / qwenImageTokens the tree has.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { qwenImageTokens, qwenResizedDims } from '../../src/core/protocols/fp/rules/qwenTokens';

/** Vision start/end tokens qwenImageTokens adds to the processor's merged-patch count. */
const WRAP = 2;

type Row = [number, number, number, number, number]; // w, h, w', h', tokens (−1: transformers refuses the size)

export interface TransformersTokens {
  transformers: string;
  sent: Row[];
  edges: Row[];
  grid: { ws: number[]; hs: number[]; tokens: number[] };
}

export interface Mismatch {
  set: string;
  width: number;
  height: number;
  ours: { width: number; height: number; tokens: number } | string;
  theirs: { width: number; height: number; tokens: number } | null;
}

function ours(w: number, h: number): Mismatch['ours'] {
  try {
    const d = qwenResizedDims(w, h);
    return { width: d.width, height: d.height, tokens: qwenImageTokens(w, h) - WRAP };
  } catch (err) {
    return `throws: ${(err as Error).message}`;
  }
}

/** Every row that disagrees. A size transformers refuses (aspect ratio over 200) is a mismatch only if we don't throw too. */
export function compare(data: TransformersTokens): { checked: Record<string, number>; mismatches: Mismatch[] } {
  const mismatches: Mismatch[] = [];
  const check = (set: string, w: number, h: number, theirs: Mismatch['theirs'], dimsKnown: boolean) => {
    const o = ours(w, h);
    if (theirs === null) {
      if (typeof o !== 'string') mismatches.push({ set, width: w, height: h, ours: o, theirs });
      return;
    }
    const same = typeof o !== 'string' && o.tokens === theirs.tokens && (!dimsKnown || (o.width === theirs.width && o.height === theirs.height));
    if (!same) mismatches.push({ set, width: w, height: h, ours: o, theirs });
  };
  for (const [set, rows] of [
    ['sent', data.sent],
    ['edges', data.edges],
  ] as const) {
    for (const [w, h, w2, h2, t] of rows) check(set, w, h, t < 0 ? null : { width: w2, height: h2, tokens: t }, true);
  }
  const { ws, hs, tokens } = data.grid;
  if (tokens.length !== ws.length * hs.length) throw new Error(`grid: ${tokens.length} tokens for ${ws.length}×${hs.length} sizes`);
  hs.forEach((h, i) =>
    ws.forEach((w, j) => {
      const t = tokens[i * ws.length + j];
      check('grid', w, h, t < 0 ? null : { width: NaN, height: NaN, tokens: t }, false);
    }),
  );
  return { checked: { sent: data.sent.length, edges: data.edges.length, grid: tokens.length }, mismatches };
}

if (require.main === module) {
  const file = path.resolve(process.argv[2] ?? 'test/fixtures/qwen_tokens_transformers.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as TransformersTokens;
  const { checked, mismatches } = compare(data);
  console.log(
    `qwenTokens vs transformers ${data.transformers} (${file}): checked ${Object.entries(checked)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  for (const set of Object.keys(checked)) {
    const m = mismatches.filter((x) => x.set === set);
    console.log(`  ${set}: ${m.length} mismatches`);
    for (const x of m.slice(0, 8)) console.log(`    ${x.width}x${x.height}: ours ${JSON.stringify(x.ours)}, transformers ${JSON.stringify(x.theirs)}`);
  }
  process.exitCode = mismatches.length ? 1 : 0;
}

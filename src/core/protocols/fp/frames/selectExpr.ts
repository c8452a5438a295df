// The expression for ffmpeg's `select` filter that lets through exactly the decoded frames we need.
// `n` is the 0-based number of the frame entering the filter, i.e. the frame's stored index when the
// filter sees every decoded frame (`-fps_mode passthrough`, no frame-rate conversion before it).

/** Sorted, duplicate-free copy; throws on anything that is not a non-negative whole number. */
export function sortedUnique(indices: Iterable<number>): number[] {
  const out = [...new Set(indices)].sort((a, b) => a - b);
  for (const i of out) {
    if (!Number.isSafeInteger(i) || i < 0) throw new RangeError(`frame index ${i} is not a whole number ≥ 0`);
  }
  return out;
}

/**
 * `between(n,a,b)` for each run of consecutive indices, `eq(n,a)` for a lone one, summed (non-zero =
 * keep). Runs keep the expression short for the dense fps ladders (evaluated once per decoded frame).
 * The caller quotes it in the filtergraph ('…'), so the commas need no escaping.
 */
export function selectExpression(indices: readonly number[]): string {
  const sorted = sortedUnique(indices);
  if (sorted.length === 0) throw new RangeError('select expression needs at least one frame index');
  const terms: string[] = [];
  let start = sorted[0];
  let prev = start;
  const flush = () => terms.push(start === prev ? `eq(n,${start})` : `between(n,${start},${prev})`);
  for (let k = 1; k < sorted.length; k++) {
    const i = sorted[k];
    if (i === prev + 1) {
      prev = i;
      continue;
    }
    flush();
    start = prev = i;
  }
  flush();
  return balancedSum(terms);
}

/** Terms per flat `a+b+…` run. ffmpeg's expression parser refuses a flat sum of ~128+ terms. */
const FLAT_TERMS = 16;

/**
 * `a+b+…` as a balanced tree of parenthesised sums, so the parser's nesting stays logarithmic: a
 * long video's union of fps and count frames is hundreds of scattered indices, and a flat sum of
 * that many terms makes ffmpeg fail with "Error while parsing expression".
 */
function balancedSum(terms: readonly string[]): string {
  if (terms.length <= FLAT_TERMS) return terms.join('+');
  const half = terms.length >>> 1;
  return `(${balancedSum(terms.slice(0, half))})+(${balancedSum(terms.slice(half))})`;
}

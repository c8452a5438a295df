// Each of a split's five bins as the range of values it holds, from the four cut points (the lower bounds of bins 1
// to 4; core/protocols/avtime/data/split/bins.ts binOf: a value reaching a cut point is in the bin above). Pure: the
// data report's table of bins says what bin 0 and bin 4 hold, which the cut points alone leave unsaid.

/** Bin k's range in words: "< a" (bin 0), "a – < b", "≥ d" (the last); `unit` formats a value. */
export function binRanges(cuts: readonly number[], unit: (v: number) => string): string[] {
  if (!cuts.length) return [];
  return [`< ${unit(cuts[0])}`, ...cuts.slice(0, -1).map((c, k) => `${unit(c)} to < ${unit(cuts[k + 1])}`), `≥ ${unit(cuts[cuts.length - 1])}`];
}

/** Milliseconds as seconds for people: 30500 → "30.5 s". */
export function msAsSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1)).toLocaleString('en-US')} s`;
}

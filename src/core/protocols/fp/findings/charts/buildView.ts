// The findings webview's model: the findings without their item-level flips (served one benchmark × contrast
// at a time), plus each benchmark's ladder points. Pure.
import type { Findings, Flip } from '../types';
import type { MeanFrames } from './framesSent';
import { ladderPoints, NOMINAL_FRAME } from './ladders';
import type { FindingsView } from './viewModel';

export const TOKEN_NOTE = `visual tokens estimated for a ${NOMINAL_FRAME.width}×${NOMINAL_FRAME.height} (16:9) video, frames as sent`;

export function buildFindingsView(f: Findings, meanFrames: MeanFrames, packageDir: string, generatedAt: string): FindingsView {
  return {
    packageDir,
    generatedAt,
    findings: { ...f, benchmarks: f.benchmarks.map(({ flips: _flips, ...b }) => b) },
    ladders: Object.fromEntries(f.benchmarks.map((b) => [b.benchmark, ladderPoints(b, meanFrames[b.benchmark])])),
    tokenNote: TOKEN_NOTE,
  };
}

/** The items of one benchmark that flip on one contrast (empty when the findings carry no flips). */
export function flipsOf(f: Findings, benchmark: string, contrast: string): Flip[] {
  return f.benchmarks.find((b) => b.benchmark === benchmark)?.flips?.filter((x) => x.contrast === contrast) ?? [];
}

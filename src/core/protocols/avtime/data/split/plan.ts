// The split as a pure function of the parsed source (SPEC-AVTIME-DATA §1): retention, row checks, bins, the test
// set (frozen or derived), and every count the manifest records. Problems are returned, never half-applied.
import { InputError, type LineProblem } from '../../../../errors';
import type { SourceRow } from '../rowSchema';
import { bySeededRank } from '../seededRank';
import { binCounts, binOf, cutPoints } from './bins';
import { stratumQuotas } from './quotas';
import { retention } from './retention';
import { rowFacts, type RowFacts } from './rowChecks';

export type TestChoice = { mode: 'frozen'; ids: ReadonlyArray<{ id: string; line: number }>; file: string } | { mode: 'derived'; size: number; seed: string };

/** What the split needs of a source line, taken as it is read (the parsed row is not kept). */
export type Screened = { kind: 'excluded'; why: 'other_source' | 'unknown_unlabeled' } | { kind: 'bad'; problems: string[] } | { kind: 'ok'; facts: RowFacts };
export interface ScreenedLine {
  line: number;
  /** Where the line's exact text lies in the source's bytes ([start, end)), copied out as it was. */
  start: number;
  end: number;
  screened: Screened;
}

export function screenRow(row: SourceRow): Screened {
  const r = retention(row);
  if (r !== 'retained') return { kind: 'excluded', why: r };
  const f = rowFacts(row);
  return f.ok ? { kind: 'ok', facts: f.facts } : { kind: 'bad', problems: f.problems };
}

export interface SplitRow extends RowFacts {
  line: number;
  start: number;
  end: number;
  duration_bin: number;
  event_count_bin: number;
}

export interface SplitPlan {
  rowsRead: number;
  excluded: { other_source: number; unknown_unlabeled: number };
  retained: SplitRow[];
  cuts: { duration_ms: number[]; event_count: number[] };
  test: SplitRow[];
  train: SplitRow[];
}

export function planSplit(
  file: string,
  lines: readonly ScreenedLine[],
  choice: TestChoice,
  expectedRows: number,
): { plan: SplitPlan } | { problems: LineProblem[] } {
  const problems: LineProblem[] = [];
  const excluded = { other_source: 0, unknown_unlabeled: 0 };
  const facts: { line: number; start: number; end: number; facts: RowFacts }[] = [];
  const idAt = new Map<string, number>();
  const videoAt = new Map<string, number>();
  for (const l of lines) {
    const f = l.screened;
    if (f.kind === 'excluded') {
      excluded[f.why]++;
      continue;
    }
    if (f.kind === 'bad') {
      for (const message of f.problems) problems.push({ file, line: l.line, message });
      continue;
    }
    const seenId = idAt.get(f.facts.id);
    if (seenId !== undefined) problems.push({ file, line: l.line, message: `id '${f.facts.id}' already on line ${seenId}; expected unique ids` });
    else idAt.set(f.facts.id, l.line);
    const seenVideo = videoAt.get(f.facts.video);
    if (seenVideo !== undefined)
      problems.push({
        file,
        line: l.line,
        message: `video '${f.facts.video}' already used on line ${seenVideo}; the split is video-disjoint: one row per video`,
      });
    else videoAt.set(f.facts.video, l.line);
    facts.push({ line: l.line, start: l.start, end: l.end, facts: f.facts });
  }
  if (problems.length) return { problems };
  if (expectedRows !== 0 && facts.length !== expectedRows)
    throw new InputError(
      `${file}: ${facts.length} rows retained; expected ${expectedRows} ` +
        '(--expected-rows; 0 turns the check off for a different corpus version). Nothing written',
    );
  if (facts.length === 0) throw new InputError(`${file}: no row retained; expected AVTime rows (metadata.source "avtime" or an avtime_ id). Nothing written`);

  const cuts = { duration_ms: cutPoints(facts.map((f) => f.facts.duration_ms)), event_count: cutPoints(facts.map((f) => f.facts.event_count)) };
  const retained: SplitRow[] = facts.map(({ line, start, end, facts: f }) => ({
    ...f,
    line,
    start,
    end,
    duration_bin: binOf(f.duration_ms, cuts.duration_ms),
    event_count_bin: binOf(f.event_count, cuts.event_count),
  }));
  const chosen = chooseTest(file, retained, choice);
  if ('problems' in chosen) return chosen;
  return {
    plan: {
      rowsRead: lines.length,
      excluded,
      retained,
      cuts,
      test: retained.filter((r) => chosen.ids.has(r.id)),
      train: retained.filter((r) => !chosen.ids.has(r.id)),
    },
  };
}

function chooseTest(file: string, retained: readonly SplitRow[], choice: TestChoice): { ids: Set<string> } | { problems: LineProblem[] } {
  if (choice.mode === 'frozen') {
    const have = new Set(retained.map((r) => r.id));
    const missing = choice.ids.filter((t) => !have.has(t.id));
    if (missing.length)
      return {
        problems: missing.map((t) => ({
          file: choice.file,
          line: t.line,
          message: `test id '${t.id}' is not a retained row of the source; expected every frozen test id retained`,
        })),
      };
    return { ids: new Set(choice.ids.map((t) => t.id)) };
  }
  if (choice.size > retained.length)
    throw new InputError(`--test-size ${choice.size} is more than the ${retained.length} retained rows of ${file}. Nothing written`);
  const strata: SplitRow[][] = Array.from({ length: 25 }, () => []);
  for (const r of retained) strata[5 * r.duration_bin + r.event_count_bin].push(r);
  const quotas = stratumQuotas(
    strata.map((s) => s.length),
    choice.size,
  );
  const ids = new Set<string>();
  strata.forEach((s, k) =>
    bySeededRank(s, choice.seed, (r) => r.id)
      .slice(0, quotas[k])
      .forEach((r) => ids.add(r.id)),
  );
  return { ids };
}

/** Counts per bin of a set of rows, for the manifest's distributions. */
export function distribution(rows: readonly SplitRow[]): { duration_bins: number[]; event_count_bins: number[] } {
  return { duration_bins: binCounts(rows.map((r) => r.duration_bin)), event_count_bins: binCounts(rows.map((r) => r.event_count_bin)) };
}

// The one-round SFT rows (SPEC-AVTIME-DATA §4) as a pure function of the parsed inputs and the prompts.
import type { LineProblem } from '../../../../errors';
import type { SourceRow } from '../rowSchema';
import { durationMs, videoRef } from '../rowFacts';
import { bySeededRank } from '../seededRank';
import { answerLine, rowEvents } from './events';

export type SftSource = 'avtime' | 'longvale';
export type SkipReason = 'no_video' | 'no_duration' | 'no_events';

export interface SftPrompts {
  system: string;
  user: string;
}

export interface SftInput {
  source: SftSource;
  file: string;
  /** Hands each parsed row over as it is read (the row is not kept: only the SFT row made of it is). */
  each(onRow: (l: { line: number; value: SourceRow }) => void): void;
}

export interface SftRow {
  id: string;
  videos: [string];
  messages: [{ role: 'system'; content: string }, { role: 'user'; content: string }, { role: 'assistant'; content: string }];
  metadata: { source: SftSource; duration_ms: number };
}

export interface SftTally {
  rows_read: number;
  valid: number;
  skipped: Record<SkipReason, number>;
}

export interface SftBuild {
  rows: SftRow[];
  tally: Record<SftSource, SftTally>;
  sampled: number;
  events: { dropped: { no_caption: number; bad_time: number }; deduplicated: number };
}

interface Valid {
  line: number;
  row: SftRow;
}

export function buildSft(
  inputs: readonly SftInput[],
  prompts: SftPrompts,
  sampleCount: number,
  seed: string,
): { build: SftBuild } | { problems: LineProblem[] } {
  const problems: LineProblem[] = [];
  const events = { dropped: { no_caption: 0, bad_time: 0 }, deduplicated: 0 };
  const tally = {} as Record<SftSource, SftTally>;
  const valid = {} as Record<SftSource, Valid[]>;
  for (const input of inputs) {
    const t: SftTally = { rows_read: 0, valid: 0, skipped: { no_video: 0, no_duration: 0, no_events: 0 } };
    const kept: Valid[] = [];
    input.each(({ line, value }) => {
      t.rows_read++;
      if (typeof value.id !== 'string' || value.id === '') {
        problems.push({ file: input.file, line, message: 'id: missing or empty; expected a non-empty string' });
        return;
      }
      const video = videoRef(value);
      if (video === null) {
        t.skipped.no_video++;
        return;
      }
      const d = durationMs(value);
      if (!d.ok) {
        t.skipped.no_duration++;
        return;
      }
      const ev = rowEvents(value.messages, d.ms);
      if (ev) {
        events.dropped.no_caption += ev.dropped.no_caption;
        events.dropped.bad_time += ev.dropped.bad_time;
        events.deduplicated += ev.deduplicated;
      }
      if (!ev || ev.events.length === 0) {
        t.skipped.no_events++;
        return;
      }
      kept.push({
        line,
        row: {
          id: value.id,
          videos: [video],
          messages: [
            { role: 'system', content: prompts.system },
            { role: 'user', content: '<video>' + prompts.user },
            { role: 'assistant', content: ev.events.map(answerLine).join('\n') },
          ],
          metadata: { source: input.source, duration_ms: d.ms },
        },
      });
    });
    t.valid = kept.length;
    tally[input.source] = t;
    valid[input.source] = kept;
  }
  const avtime = valid.avtime ?? [];
  const sampled = sampleCount === 0 ? avtime : bySeededRank(avtime, seed, (v) => v.row.id).slice(0, sampleCount);
  const sampledSet = new Set(sampled);
  const chosen = [
    ...(valid.longvale ?? []).map((v) => ({ v, file: fileOf(inputs, 'longvale') })),
    ...avtime.filter((v) => sampledSet.has(v)).map((v) => ({ v, file: fileOf(inputs, 'avtime') })),
  ];
  const firstAt = new Map<string, string>();
  for (const { v, file } of chosen) {
    const first = firstAt.get(v.row.id);
    if (first !== undefined)
      problems.push({ file, line: v.line, message: `id '${v.row.id}' is already in the output (from ${first}); expected unique ids in the output` });
    else firstAt.set(v.row.id, `${file}:${v.line}`);
  }
  if (problems.length) return { problems };
  return { build: { rows: chosen.map(({ v }) => v.row), tally, sampled: sampled.length, events } };
}

const fileOf = (inputs: readonly SftInput[], s: SftSource) => inputs.find((i) => i.source === s)!.file;

/** min / median (the lower middle value [decided]) / max of the events per written row. */
export function eventsPerRow(rows: readonly SftRow[]): { min: number; median: number; max: number } | null {
  if (rows.length === 0) return null;
  const n = rows.map((r) => r.messages[2].content.split('\n').length).sort((a, b) => a - b);
  return { min: n[0], median: n[Math.floor((n.length - 1) / 2)], max: n[n.length - 1] };
}

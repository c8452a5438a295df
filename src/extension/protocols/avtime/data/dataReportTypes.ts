// What the AVTime data report panel draws (SPEC-AVTIME-DATA §1, §4, §5): one model per data step's report file,
// made from the files in the host (dataReportModel.ts) and laid out by the webview (media/src/protocols/avtime/data.ts).
// Types only: the webview bundle imports them.

/** A file named by a report, with its sha256 (and rows, where the report counts them). */
export interface HashedFile {
  name: string;
  path: string;
  sha256: string;
  rows: number | null;
}

/** One cell of the 5×5 strata: duration bin × event-count bin, with the rows in it. */
export interface StratumCell {
  duration_bin: number;
  event_count_bin: number;
  rows: number;
}

/** One bar of a per-bin distribution: a split's rows in one bin of one axis. */
export interface BinBar {
  axis: 'duration' | 'event count';
  bin: number;
  split: 'train' | 'test';
  rows: number;
}

export interface SplitReportView {
  kind: 'split';
  /** The split_manifest.json read. */
  file: string;
  mode: string;
  seed: string | null;
  counts: { rows_read: number; rows_retained: number; other_source: number; unknown_unlabeled: number; train: number; test: number };
  /** The four cut points of each axis (the bins' lower bounds from bin 1). */
  cutPoints: { duration_ms: number[]; event_count: number[] };
  /** The test set's 25 strata, from test_ids.jsonl (every cell, empty ones with 0). */
  strata: StratumCell[];
  /** Train and test per bin of each axis, from the manifest's distributions. */
  bins: BinBar[];
  checks: { name: string; ok: boolean }[];
  files: HashedFile[];
}

/** Rows with a given number of events. */
export interface EventsBar {
  events: number;
  rows: number;
}

export interface BuildReportView {
  kind: 'sft' | 'grpo';
  /** The report JSON read. */
  file: string;
  seed: string;
  /** Named counts in the report's order (written, skipped by reason, events dropped…). */
  counts: { name: string; value: number }[];
  /** Settings of the build worth seeing beside its counts (sample count, shuffle, schema, task). */
  settings: { name: string; value: string }[];
  /** Events per output row, from the output JSONL; null when the output could not be read (why: `histogramError`). */
  histogram: EventsBar[] | null;
  histogramError: string | null;
  files: HashedFile[];
}

export type DataReportView = SplitReportView | BuildReportView;

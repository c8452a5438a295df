// The report files the data verbs write (SPEC-AVTIME-DATA §1 split_manifest.json and test_ids.jsonl, §4 the SFT
// report, §5 the GRPO report, §4/§5 the output rows), as zod schemas: the panel's boundary. Only the fields the panel
// shows are required; more are allowed (a later version may add some).
import { z } from 'zod';

const count = z.number().int().nonnegative();
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lowercase hex');
const bins5 = z.array(count).length(5);

export const SPLIT_MANIFEST = 'split_manifest.json';
export const TEST_IDS = 'test_ids.jsonl';

export const splitManifestSchema = z.object({
  schema_version: z.literal('avtime_split_v1'),
  mode: z.enum(['frozen', 'derived']),
  seed: z.string().optional(),
  source: z.object({
    path: z.string(),
    sha256,
    rows_read: count,
    rows_retained: count,
    excluded: z.object({ other_source: count, unknown_unlabeled: count }),
  }),
  test_ids_file: z.object({ path: z.string(), sha256 }).optional(),
  cut_points: z.object({ duration_ms: z.array(z.number()).length(4), event_count: z.array(z.number()).length(4) }),
  outputs: z.record(z.string(), z.object({ rows: count, sha256 })),
  distributions: z.object({
    train: z.object({ duration_bins: bins5, event_count_bins: bins5 }),
    test: z.object({ duration_bins: bins5, event_count_bins: bins5 }),
  }),
  checks: z.record(z.string(), z.boolean()),
});
export type SplitManifestFile = z.infer<typeof splitManifestSchema>;

const bin = z.number().int().min(0).max(4);
export const testIdLineSchema = z.object({ id: z.string(), duration_bin: bin, event_count_bin: bin });

const hashedInput = z.object({ path: z.string(), sha256, rows_read: count });
const hashedOutput = z.object({ path: z.string(), rows: count, sha256 });

export const sftReportSchema = z.object({
  schema_version: z.literal('avtime_sft_report_v1'),
  inputs: z.record(z.string(), hashedInput),
  seed: z.string(),
  avtime_sample_count: z.object({ requested: count, sampled: count }),
  counts: z.object({
    written: count,
    written_by_source: z.record(z.string(), count),
    valid: z.record(z.string(), count),
    skipped: z.record(z.string(), z.record(z.string(), count)),
  }),
  events: z.object({ dropped: z.object({ no_caption: count, bad_time: count }), deduplicated: count }),
  prompts: z.object({ system: z.object({ file: z.string(), sha256 }), user: z.object({ file: z.string(), sha256 }) }),
  output: hashedOutput,
});
export type SftReportFile = z.infer<typeof sftReportSchema>;

export const grpoReportSchema = z.object({
  schema_version: z.literal('avtime_grpo_report_v1'),
  schema: z.string(),
  task: z.string(),
  seed: z.string(),
  shuffle: z.boolean(),
  check_media: z.object({ media_root: z.string() }).nullable(),
  input: hashedInput,
  counts: z.object({ written: count, events: count }),
  output: hashedOutput,
});
export type GrpoReportFile = z.infer<typeof grpoReportSchema>;

/** An SFT output row: its last message is the assistant's `From XX to YY, caption` lines. */
export const sftRowSchema = z.object({ messages: z.array(z.object({ role: z.string(), content: z.string() })).min(1) });
/** A GRPO output row: its solution is the compact JSON of the events. */
export const grpoRowSchema = z.object({ solution: z.string() });

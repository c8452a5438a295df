// The item inspector's model (issue 36 point 1): one Frames × Pixels item across its conditions, as the run left it
// (the results CSV row, the raw record, failure lines) with the frames each condition sent. `fpsweep inspect --json`
// prints it; the extension checks it with these schemas and the webview imports the types only.
import { z } from 'zod';

/**
 * Where a frame's JPEG comes from: `run`, the file the sweep wrote to its frame store (.fpsweep/frames); `rebuilt`,
 * made again by the frame pipeline (the one frame module) into .fpsweep/inspect-frames because the run's file is
 * gone; `missing`, neither (the video is gone, the rebuild failed or was not asked for: `problems` says which).
 */
export const FRAME_SOURCES = ['run', 'rebuilt', 'missing'] as const;
export type FrameSource = (typeof FRAME_SOURCES)[number];

export const inspectedFrameSchema = z.object({
  /** The stored frame's index in the video (meta.json's order), as the raw record names it. */
  index: z.number().int().nonnegative(),
  /** Its presentation time, seconds (the raw record's, else meta.json's); null when neither says. */
  timestamp: z.number().nullable(),
  /** The JPEG's absolute path, null when missing. */
  file: z.string().nullable(),
  source: z.enum(FRAME_SOURCES),
});
export type InspectedFrame = z.infer<typeof inspectedFrameSchema>;

/** What the item has under a condition: a CSV row (`ok`, `NA`, `reuse`), only failure lines, or nothing yet. */
export const CONDITION_STATES = ['ok', 'NA', 'reuse', 'failed', 'none'] as const;
export type ConditionState = (typeof CONDITION_STATES)[number];

export const inspectedFailureSchema = z.object({
  kind: z.string(),
  message: z.string(),
  endpoint: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  ts: z.string(),
});

export const conditionInspectionSchema = z.object({
  condition: z.string(),
  state: z.enum(CONDITION_STATES),
  /** The raw model reply (the raw record's `response`); null without a raw record or a request. */
  response: z.string().nullable(),
  /** The parsed option letter ('' when the reply names none); null without an answer. */
  pred: z.string().nullable(),
  correct: z.boolean().nullable(),
  promptTokens: z.number().int().nullable(),
  completionTokens: z.number().int().nullable(),
  /** The engine's prediction of the prompt tokens (raw meta), beside what the server counted. */
  predictedPromptTokens: z.number().int().nullable(),
  latencyS: z.number().nullable(),
  /** The server that answered (the raw record's endpoint). */
  endpoint: z.string().nullable(),
  ts: z.string().nullable(),
  /** A reuse row: the condition whose answer it copies (no request, no frames). */
  reusedFrom: z.string().nullable(),
  /** Dims of the frames as sent; null for text only or without a raw record. */
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  shortSide: z.number().int().nullable(),
  capped: z.boolean().nullable(),
  cappedCtx: z.boolean().nullable(),
  nGrid: z.number().int().nullable(),
  nMax: z.number().int().nullable(),
  /** The frames in the order they were sent. */
  frames: z.array(inspectedFrameSchema),
  failures: z.array(inspectedFailureSchema),
  /** What could not be read or shown, in words (file:line where there is one). */
  problems: z.array(z.string()),
});
export type ConditionInspection = z.infer<typeof conditionInspectionSchema>;

export const itemInspectionSchema = z.object({
  packageDir: z.string(),
  benchmark: z.string(),
  item: z.object({
    item_id: z.string(),
    video_id: z.string(),
    question: z.string(),
    options: z.array(z.string()),
    answer: z.string(),
  }),
  /** The text part of the request, from the one prompt module. */
  promptText: z.string(),
  /** The stored video (manifest hash and meta.json), null when the package has none for the item. */
  video: z.object({ hash: z.string(), width: z.number().int(), height: z.number().int(), nFrames: z.number().int(), durationS: z.number() }).nullable(),
  videoProblem: z.string().nullable(),
  conditions: z.array(conditionInspectionSchema),
  /** Frames made again for this inspection (0 when every frame was the run's own or had been rebuilt before). */
  rebuiltFrames: z.number().int().nonnegative(),
});
export type ItemInspection = z.infer<typeof itemInspectionSchema>;

/** One item of a benchmark as a list row (the tree's benchmark × condition → items). */
export const itemListEntrySchema = z.object({
  item_id: z.string(),
  video_id: z.string(),
  question: z.string(),
  answer: z.string(),
  state: z.enum(CONDITION_STATES),
  pred: z.string().nullable(),
  correct: z.boolean().nullable(),
});
export type ItemListEntry = z.infer<typeof itemListEntrySchema>;
export const itemListSchema = z.object({ benchmark: z.string(), condition: z.string(), items: z.array(itemListEntrySchema) });
export type ItemList = z.infer<typeof itemListSchema>;

// The cut's own files, as zod schemas (read back by resume, status and the views): the run's inputs (`run.json`),
// a video's state (`videos/<stem>.json`) and a rank's status file.
import { z } from 'zod';
import { rankStatusFields } from '../../runner/rankStatus';

/** size + mtime in ns of a source file: a completed video is done while its source's signature is unchanged. */
export const sourceSignatureSchema = z.object({ size: z.number().int().nonnegative(), mtimeNs: z.string().regex(/^\d+$/) });
export type SourceSignature = z.infer<typeof sourceSignatureSchema>;

export const videoStateSchema = z.object({
  stem: z.string(),
  /** The source's absolute path when it was cut. */
  source: z.string(),
  signature: sourceSignatureSchema,
  /** 'running' left behind by a killed worker reads as interrupted: the video is cut again. */
  state: z.enum(['running', 'completed', 'failed']),
  reason: z.string().nullable(),
  segments: z.number().int().nonnegative(),
  /** Detector channels the published cut ran without. */
  degraded: z.array(z.string()),
  /** 'builtin', or the cutter's program. */
  cutter: z.string(),
  runId: z.string(),
  /** 0-based rank that cut it, or null when unsharded. */
  rank: z.number().int().nullable(),
  at: z.string(),
});
export type VideoState = z.infer<typeof videoStateSchema>;

export const runFileSchema = z.object({
  inputRoot: z.string(),
  cutter: z.string(),
  at: z.string(),
});
export type RunFile = z.infer<typeof runFileSchema>;

export const cutStatusSchema = z.object({
  ...rankStatusFields,
  /** Stems being cut now. */
  running: z.array(z.string()),
});
export type CutStatus = z.infer<typeof cutStatusSchema>;

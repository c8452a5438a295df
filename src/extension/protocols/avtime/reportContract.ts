// AVTime-Bench's report panel as a contract both sides read (one panel per run): its kind, its model and its own
// webview requests, with the zod schema the host checks them with. No vscode, no Node.
import { z } from 'zod';
import type { AvtimeQueryDetail, AvtimeQueryFilter, AvtimeQueryList, AvtimeReport } from '../../../core/protocols/avtime/reportTypes';
import type { ReportContract, Request } from '../../reports/contract';

const req = z.number().int().nonnegative();

export const avtimeReports = {
  source: 'avtime',
  kinds: { avtime: 'AVTime-Bench' },
  requestSchemas: [
    z
      .object({
        req,
        command: z.literal('avtimeQueries'),
        args: z
          .object({
            direction: z.enum(['t2e', 'e2t', 'e2e']).optional(),
            axis: z.enum(['A', 'V']).optional(),
            video: z.string().max(500).optional(),
            text: z.string().max(500).optional(),
          })
          .strict(),
      })
      .strict(),
    z.object({ req, command: z.literal('avtimeQuery'), args: z.object({ queryId: z.string().min(1).max(512) }).strict() }).strict(),
  ],
} as const satisfies ReportContract;

export interface AvtimeReportTypes {
  avtime: {
    model: AvtimeReport;
    requests: {
      avtimeQueries: Request<AvtimeQueryFilter, AvtimeQueryList>;
      avtimeQuery: Request<{ queryId: string }, AvtimeQueryDetail>;
    };
  };
}

const fact = z.object({ label: z.string(), value: z.string() }).strict();

/**
 * `fpsweep report --package <output root> --json` as the host reads it (the CLI's JSON is a boundary): the fields the
 * panel lays out, checked; the score table and intervals, which the core's own types describe, carried as they are.
 */
export const avtimeReportSchema = z
  .object({
    kind: z.literal('avtime'),
    runId: z.string(),
    outputRoot: z.string(),
    generatedAt: z.string(),
    scored: z.boolean(),
    scores: z.array(z.object({ key: z.string(), score: z.number() }).passthrough()),
    intervals: z
      .object({ rows: z.array(z.unknown()) })
      .passthrough()
      .nullable(),
    counts: z.array(fact),
    predictionFailures: z.number().nullable(),
    canonical: z.boolean().nullable(),
    identity: z.array(fact),
    traces: z.number(),
    videos: z.array(z.string()),
    problems: z.array(z.string()),
  })
  .strict() as unknown as z.ZodType<AvtimeReport>;

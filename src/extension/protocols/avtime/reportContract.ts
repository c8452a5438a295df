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

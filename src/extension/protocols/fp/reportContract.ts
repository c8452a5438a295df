// Frames × Pixels' report panels as a contract both sides read: its report kinds (their titles, and which source
// answers them), each source's report model and its own webview requests, with the zod schema the host checks
// them with. No vscode, no Node: the webview imports its types (type-only, so no zod in its bundle).
import { z } from 'zod';
import type { FindingsView } from '../../../core/protocols/fp/findings/charts/viewModel';
import { CONTRAST_NAMES, type ContrastName, type Flip } from '../../../core/protocols/fp/findings/types';
import type { Report } from '../../../core/protocols/fp/report/schema';
import type { ReportContract, Request } from '../../reports/contract';

/** One item of a package (question, options, answer), as the item lookup shows it. */
export interface ItemView {
  item_id: string;
  benchmark: string;
  video_id: string;
  question: string;
  options: string[];
  answer: string;
}

const name = z.string().min(1).max(512);

/** The arguments of the findings panel's flips request. */
export const findingsFlipsArgsSchema = z
  .object({
    benchmark: name,
    contrast: z.enum(CONTRAST_NAMES as [ContrastName, ...ContrastName[]]),
  })
  .strict();

/** Open the item inspector on one item, with `condition` first (a failure row's). */
export const inspectItemArgsSchema = z.object({ benchmark: name, itemId: name, condition: name.optional() }).strict();

/** Open the item inspector on a flip: the item with the contrast's two conditions first (the host knows which). */
export const inspectFlipArgsSchema = z
  .object({ benchmark: name, itemId: name, contrast: z.enum(CONTRAST_NAMES as [ContrastName, ...ContrastName[]]) })
  .strict();

/** The package's reports (timing, failures, checks): `fpsweep report --json`, and the item lookup. */
export const fpReports = {
  source: 'fp',
  kinds: { timing: 'Pilot timing', failures: 'Failures', checks: 'Checks' },
  requestSchemas: [
    z.object({ req: z.number().int().nonnegative(), command: z.literal('getItem'), args: z.object({ benchmark: name, itemId: name }).strict() }).strict(),
    z.object({ req: z.number().int().nonnegative(), command: z.literal('inspectItem'), args: inspectItemArgsSchema }).strict(),
  ],
} as const satisfies ReportContract;

/** The findings panel: `fpsweep findings --json`, and the flips of one benchmark × contrast. */
export const findingsReports = {
  source: 'fpFindings',
  kinds: { findings: 'Findings' },
  requestSchemas: [
    z.object({ req: z.number().int().nonnegative(), command: z.literal('findingsFlips'), args: findingsFlipsArgsSchema }).strict(),
    z.object({ req: z.number().int().nonnegative(), command: z.literal('inspectFlip'), args: inspectFlipArgsSchema }).strict(),
  ],
} as const satisfies ReportContract;

/** The types each source's model and requests carry (messages.ts composes them). */
export interface FpReportTypes {
  fp: {
    model: Report;
    requests: {
      getItem: Request<{ benchmark: string; itemId: string }, ItemView>;
      inspectItem: Request<{ benchmark: string; itemId: string; condition?: string }, true>;
    };
  };
  fpFindings: {
    model: FindingsView;
    requests: {
      findingsFlips: Request<{ benchmark: string; contrast: ContrastName }, Flip[]>;
      inspectFlip: Request<{ benchmark: string; itemId: string; contrast: ContrastName }, true>;
    };
  };
}

// AVTime's data report panel as a contract both sides read: one panel per report file (split, build-sft,
// build-grpo; the panel's `run` is the file or the split's folder), no requests of its own. No vscode, no Node.
import type { ReportContract } from '../../../reports/contract';
import type { DataReportView } from './dataReportTypes';

export const avtimeDataReports = {
  source: 'avtimeData',
  kinds: { avtimeData: 'AVTime data report' },
  requestSchemas: [],
} as const satisfies ReportContract;

export interface AvtimeDataReportTypes {
  avtimeData: {
    model: DataReportView;
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a panel that only shows its report
    requests: {};
  };
}

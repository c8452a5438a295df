// The run types' report contracts (the pure half of the UI registry, beside PROTOCOL_UIS in registry.ts): the
// report kinds, the sources that answer them and the requests each one takes. Pure (no vscode), so the host's
// request check (reports/requests.ts) and its tests load it; the webview imports its types only.
// Adding a run type with a report: one line here, one in registry.ts, one in media/src/protocols/registry.ts.
import { avtimeReports, type AvtimeReportTypes } from './avtime/reportContract';
import { avtimeDataReports, type AvtimeDataReportTypes } from './avtime/data/dataReportContract';
import { findingsReports, fpReports, type FpReportTypes } from './fp/reportContract';

export const REPORT_CONTRACTS = [fpReports, findingsReports, avtimeReports, avtimeDataReports] as const;

/** Each source's report model and requests: `{ [source]: { model; requests } }`. */
export type ReportSourceTypes = FpReportTypes & AvtimeReportTypes & AvtimeDataReportTypes;

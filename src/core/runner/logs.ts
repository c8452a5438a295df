// The runner's own logs: logs/runner.log (human lines, each with time and run id),
// data/logs/failures.jsonl and data/logs/p1_timing.jsonl (one validated JSON line each, SPEC §4).
import type { PackageLayout } from '../protocols/fp/package/layout';
import { failureRecordSchema, timingRecordSchema, type FailureRecord, type TimingRecord } from '../protocols/fp/package/schemas';
import { formatLineProblem, type LineProblem } from '../errors';
import { AppendFile } from './appendFile';

export class RunnerLog {
  private readonly file: AppendFile;
  constructor(
    layout: PackageLayout,
    public runId: string,
    private readonly echo?: (line: string) => void,
  ) {
    this.file = new AppendFile(layout.runnerLog);
  }
  info(msg: string): Promise<void> {
    return this.line('info', msg);
  }
  warn(msg: string): Promise<void> {
    return this.line('warn', msg);
  }
  error(msg: string): Promise<void> {
    return this.line('error', msg);
  }
  /** A problem in an input file, as file:line: message. */
  problem(p: LineProblem): Promise<void> {
    return this.line('problem', formatLineProblem(p));
  }
  private line(level: string, msg: string): Promise<void> {
    const text = msg.replace(/\n/g, '\n    ');
    this.echo?.(`${level === 'info' ? '' : level + ': '}${text}`);
    return this.file.append(`${new Date().toISOString()} [${this.runId}] ${level} ${text}\n`);
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

const MAX_MESSAGE = 2000;

export class FailureLog {
  private readonly file: AppendFile;
  count = 0;
  constructor(layout: PackageLayout) {
    this.file = new AppendFile(layout.failuresLog);
  }
  write(rec: FailureRecord): Promise<void> {
    this.count++;
    // ffmpeg's stderr can be long; the first part says what went wrong, the log files keep the rest.
    if (rec.message.length > MAX_MESSAGE) rec = { ...rec, message: `${rec.message.slice(0, MAX_MESSAGE)}… (${rec.message.length} chars)` };
    return this.file.append(JSON.stringify(failureRecordSchema.parse(rec)) + '\n', true);
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

export class TimingLog {
  private readonly file: AppendFile;
  constructor(layout: PackageLayout) {
    this.file = new AppendFile(layout.timingLog);
  }
  write(rec: TimingRecord & Record<string, unknown>): Promise<void> {
    timingRecordSchema.parse(rec);
    return this.file.append(JSON.stringify(rec) + '\n', true);
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

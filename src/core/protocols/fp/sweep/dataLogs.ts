// Frames × Pixels' data logs (SPEC §4): data/logs/failures.jsonl and data/logs/p1_timing.jsonl, one validated
// JSON line each, appended as the sweep goes.
import { AppendFile } from '../../../runner/appendFile';
import type { PackageLayout } from '../package/layout';
import { failureRecordSchema, timingRecordSchema, type FailureRecord, type TimingRecord } from '../package/schemas';

const MAX_MESSAGE = 2000;

export class FailureLog {
  private readonly file: AppendFile;
  count = 0;
  constructor(layout: PackageLayout) {
    this.file = new AppendFile(layout.root, layout.failuresLog);
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
    this.file = new AppendFile(layout.root, layout.timingLog);
  }
  write(rec: TimingRecord & Record<string, unknown>): Promise<void> {
    timingRecordSchema.parse(rec);
    return this.file.append(JSON.stringify(rec) + '\n', true);
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

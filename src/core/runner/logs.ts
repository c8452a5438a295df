// The runner's own log, whatever the run type: its RunRoot's runner.log, human lines, each with time and run id.
// (A run type's data logs are its own: Frames × Pixels' failures.jsonl and p1_timing.jsonl, protocols/fp/sweep/dataLogs.ts.)
import type { RunRoot } from './runRoot';
import { formatLineProblem, type LineProblem } from '../errors';
import { AppendFile } from './appendFile';

export class RunnerLog {
  private readonly file: AppendFile;
  constructor(
    root: Pick<RunRoot, 'root' | 'runnerLog'>,
    public runId: string,
    private readonly echo?: (line: string) => void,
  ) {
    this.file = new AppendFile(root.root, root.runnerLog);
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

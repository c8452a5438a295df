// The findings panel's long-lived `fpsweep findings --json --flips --follow` child (no vscode: tested under plain
// mocha). Each ask writes one line to its stdin and takes the next JSON line it prints: the findings with the
// frames each condition sent, or "unchanged". The child re-reads only what changed, so a panel following a live
// sweep costs a few stats per ask instead of a whole CLI start and findings computation (issue 24, defect B).
// A child that ended is started again on the next ask.
import { z } from 'zod';
import { findingsSchema } from '../../../core/protocols/fp/findings/types';
import { errorLine, startCli, type CliRun } from '../../cli';
import { parseBoundedJson } from '../../../core/io/boundedJson';

const followLineSchema = z.union([
  z.object({ stamp: z.string(), unchanged: z.literal(true) }).strict(),
  z.object({ stamp: z.string(), findings: findingsSchema, framesSent: z.record(z.record(z.number())) }).strict(),
]);
export type FollowLine = z.infer<typeof followLineSchema>;

export interface FindingsChildOptions {
  distDir: string;
  packageDir: string;
  env: Record<string, string>;
}

export class FindingsChild {
  private run: CliRun | undefined;
  private pending: { resolve(l: FollowLine): void; reject(e: Error): void }[] = [];
  private buffer = '';
  private stderr = '';

  constructor(private readonly opts: FindingsChildOptions) {}

  get packageDir(): string {
    return this.opts.packageDir;
  }

  /** The findings now (or "unchanged" since the last answer of this child). */
  ask(): Promise<FollowLine> {
    const run = this.run ?? this.start();
    return new Promise<FollowLine>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      run.child.stdin!.write('\n');
    });
  }

  /** Ends the child (its stdin closes: it exits). */
  dispose(): void {
    this.run?.child.stdin?.end();
    this.run = undefined;
  }

  private start(): CliRun {
    const { distDir, packageDir, env } = this.opts;
    this.buffer = '';
    this.stderr = '';
    const run = startCli({
      distDir,
      verb: 'findings',
      args: ['--json', '--flips', '--follow', '--package', packageDir],
      env,
      cwd: packageDir,
      input: true,
      onOutput: (t, stream) => (stream === 'stdout' ? this.take(t) : (this.stderr = (this.stderr + t).slice(-4000))),
    });
    run.child.stdin?.on('error', () => undefined); // an ended child: its exit below answers the asks
    void run.done.then((r) => {
      if (this.run === run) this.run = undefined;
      const why = new Error(`fpsweep findings ended (exit ${r.code ?? r.signal}): ${errorLine(this.stderr) || 'no answer'}`);
      for (const p of this.pending.splice(0)) p.reject(why);
    });
    this.run = run;
    return run;
  }

  private take(text: string): void {
    this.buffer += text;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const p = this.pending.shift();
      if (!p) continue;
      try {
        p.resolve(followLineSchema.parse(parseBoundedJson(line)));
      } catch (err) {
        p.reject(new Error(`fpsweep findings printed findings this extension does not understand (${(err as Error).message.slice(0, 200)})`));
      }
    }
  }
}

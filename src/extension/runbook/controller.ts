// Runs a runbook cell: one `fpsweep <verb>` on the runbook's package, its output streamed into the cell.
// `run … --detach` starts the background worker, then follows it with `status --wait`; interrupting
// that cell stops the worker (`fpsweep stop`). Other steps stop on SIGINT. `avtime …` steps run on the
// configured bench root (avtime/avtimeSteps.ts): `avtime run --detach` is followed through the run's status
// file and artifacts; `avtime status` and `avtime report` are answered by the extension itself.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../lifecycle';
import { isNotAvailable, startCli, type CliResult, type CliRun } from '../cli';
import { parseStep } from './format';
import { RUNBOOK_TYPE, STEP_LANGUAGE } from './serializer';
import { runAvtimeStep, type AvtimeStepHost } from '../avtime/avtimeSteps';

export interface RunbookHost {
  distDir: string;
  /** Knob environment for a step; `withToken` adds HF_TOKEN from SecretStorage for `return --upload`. */
  env(withToken: boolean): Promise<Record<string, string>>;
  /** The package of a runbook: the configured package if the runbook is inside it, else the runbook's folder. */
  packageFor(notebook: vscode.NotebookDocument): string | undefined;
  onWorkerStarted(): void;
  /** What `avtime …` steps need (settings, runs, the report panel). */
  avtime: AvtimeStepHost;
}

/** Batches output so a chatty step re-renders the cell a few times a second, not per chunk. */
class OutputStream {
  private pending: { text: string; stream: 'stdout' | 'stderr' }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Thenable<void> = Promise.resolve();
  constructor(
    private readonly exec: vscode.NotebookCellExecution,
    private readonly output: vscode.NotebookCellOutput,
  ) {}

  write(text: string, stream: 'stdout' | 'stderr'): void {
    const last = this.pending[this.pending.length - 1];
    if (last && last.stream === stream) last.text += text;
    else this.pending.push({ text, stream });
    this.timer ??= setTimeout(() => this.flush(), 150);
  }

  flush(): Thenable<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const items = this.pending.map((p) =>
      p.stream === 'stdout' ? vscode.NotebookCellOutputItem.stdout(p.text) : vscode.NotebookCellOutputItem.stderr(p.text),
    );
    this.pending = [];
    if (items.length) this.chain = this.chain.then(() => this.exec.appendOutputItems(items, this.output));
    return this.chain;
  }
}

export class RunbookController extends Disposable {
  private readonly controller: vscode.NotebookController;
  private order = 0;

  constructor(private readonly host: RunbookHost) {
    super();
    this.controller = this._register(vscode.notebooks.createNotebookController('fpsweep-runbook-steps', RUNBOOK_TYPE, 'fpsweep steps'));
    this.controller.supportedLanguages = [STEP_LANGUAGE];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = 'Runs each step with the fpsweep CLI';
    this.controller.executeHandler = async (cells, notebook) => {
      // One after another, like a person running the steps in order.
      for (const cell of cells) await this.runCell(cell, notebook);
    };
  }

  private async runCell(cell: vscode.NotebookCell, notebook: vscode.NotebookDocument): Promise<void> {
    const exec = this.controller.createNotebookCellExecution(cell);
    exec.executionOrder = ++this.order;
    exec.start(Date.now());
    const output = new vscode.NotebookCellOutput([]);
    await exec.replaceOutput([output]);
    const out = new OutputStream(exec, output);
    let ok = false;
    try {
      const step = parseStep(cell.document.getText());
      if (step.verb === 'avtime') {
        ok = await runAvtimeStep(this.host.avtime, step.args, {
          distDir: this.host.distDir,
          env: await this.host.env(false),
          token: exec.token,
          write: (t, st) => out.write(t, st),
        });
        await out.flush();
        exec.end(ok, Date.now());
        return;
      }
      const pkg = this.host.packageFor(notebook);
      if (!pkg) throw new Error('No run package: open the package folder or set fpsweep.packagePath.');
      const args = [...step.args, '--package', pkg];
      const env = await this.host.env(step.verb === 'return' && step.args.includes('--upload'));
      out.write(`$ fpsweep ${step.verb} ${step.args.join(' ')}\n`.replace(/ \n$/, '\n'), 'stdout');
      const first = await this.follow(exec, out, step.verb, args, env, pkg, step.verb !== 'run' || !step.args.includes('--detach'));
      ok = first.code === 0;
      if (ok && step.verb === 'run' && step.args.includes('--detach')) {
        this.host.onWorkerStarted();
        out.write('\nFollowing the worker (interrupt this cell to stop it)…\n', 'stdout');
        const follow = await this.follow(exec, out, 'status', ['--wait', '--package', pkg], env, pkg, false);
        ok = follow.code === 0;
      }
    } catch (err) {
      out.write(`${(err as Error).message}\n`, 'stderr');
    }
    await out.flush();
    exec.end(ok, Date.now());
  }

  /** Runs one verb; on interrupt either SIGINTs it (`ownInterrupt`) or asks the worker to stop. */
  private async follow(
    exec: vscode.NotebookCellExecution,
    out: OutputStream,
    verb: string,
    args: string[],
    env: Record<string, string>,
    pkg: string,
    ownInterrupt: boolean,
  ): Promise<CliResult> {
    const run: CliRun = startCli({ distDir: this.host.distDir, verb, args, env, cwd: path.resolve(pkg), onOutput: (t, s) => out.write(t, s) });
    const sub = exec.token.onCancellationRequested(() => {
      if (ownInterrupt) {
        run.interrupt();
        return;
      }
      out.write('\nStopping the worker…\n', 'stdout');
      const stop = startCli({ distDir: this.host.distDir, verb: 'stop', args: ['--package', pkg], env, onOutput: (t, s) => out.write(t, s) });
      void stop.done.then(() => run.interrupt());
    });
    try {
      const r = await run.done;
      if (isNotAvailable(r)) out.write(`\nfpsweep ${verb} is not available in this build yet.\n`, 'stderr');
      else if (r.code !== 0 && !exec.token.isCancellationRequested) out.write(`\n(exit ${r.code ?? r.signal})\n`, 'stderr');
      return r;
    } finally {
      sub.dispose();
    }
  }
}

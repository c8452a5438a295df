// Starts a run the way a run type's Start does: `fpsweep <verb> … --detach` through the CLI (the engine's detached
// worker), under a progress notification, its words in the output channel; a failure is said with its error line.
import * as vscode from 'vscode';
import { errorLine, lastLine, startCli } from './cli';
import { knobEnv, readSettings } from './settings';

export interface DetachedStart {
  distDir: string;
  output: vscode.OutputChannel;
  /** The notification's title and the failure's first words: 'fpsweep: Start captioning'. */
  title: string;
  /** The CLI's verb and its arguments (a two-word verb's second word first). */
  verb: string;
  args: string[];
  cwd: string;
  /** More environment for the CLI and the worker it starts (a key from SecretStorage: never an argument). */
  env?: Record<string, string>;
}

/** The CLI's last stdout line once it started the worker, or null when it failed (said to the user). */
export async function startDetached(s: DetachedStart): Promise<string | null> {
  const out = s.output;
  out.appendLine(`\n$ fpsweep ${s.verb} ${s.args.join(' ')}`);
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: s.title },
    () =>
      startCli({ distDir: s.distDir, verb: s.verb, args: s.args, env: { ...knobEnv(readSettings()), ...s.env }, cwd: s.cwd, onOutput: (t) => out.append(t) })
        .done,
  );
  if (r.code !== 0) {
    void vscode.window
      .showErrorMessage(`${s.title} failed (exit ${r.code ?? r.signal}): ${errorLine(r.stderr) || lastLine(r.stdout)}`, 'Show output')
      .then((b) => b && out.show());
    return null;
  }
  return lastLine(r.stdout);
}

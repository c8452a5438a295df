// README's own commands, run by the integration tests that already run the same verbs (issue 36 point 4: every
// command in README is run by a test). Such a test passes the command exactly as README.md writes it;
// test/cli/readmeCommands.test.ts checks that each string passed here is a command of README, so editing that command
// in README fails until the test runs the new one.
import * as path from 'node:path';

/** The CLI arguments of README command `text` (`node dist/cli.js` or `fpsweep` dropped), each `/tmp/NAME` moved
 * under `tmp` so that a test never writes to README's example paths. */
export function readmeCommand(text: string, tmp: string): string[] {
  const words = text.trim().split(/\s+/);
  if (words.some((w) => /["'$\\]/.test(w))) throw new Error(`readmeCommand takes plain words only: ${text}`);
  const args = words[0] === 'fpsweep' ? words.slice(1) : words[0] === 'node' && words[1] === 'dist/cli.js' ? words.slice(2) : undefined;
  if (!args) throw new Error(`not a CLI command: ${text}`);
  return args.map((w) => (w.startsWith('/tmp/') ? path.join(tmp, w.slice('/tmp/'.length)) : w));
}

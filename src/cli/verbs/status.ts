// fpsweep status: the worker's progress, for any run type of the registry: the protocol whose findRoots
// recognises --package says it (its statusView, else its readProgress snapshot); --wait follows it until
// the worker ends; --json prints the protocol's status object.
import { PROTOCOLS } from '../../core/protocols/registry';
import { type ProtocolRegistry } from '../../core/protocols/types';
import { parseVerbArgs, requirePackage } from '../options';
import { resolveRunRoot } from '../runRoot';
import { defaultStatusView } from '../runText';

export const summary = "the worker's progress (--wait until it ends, --json)";

const HELP = `usage: fpsweep status --package DIR [--wait] [--json]

Shows the background worker's progress: per benchmark × condition rows done and to do, failures,
throughput, ETA and server health. With no worker alive, counts are recomputed from the results CSV.

  --package DIR   the run package, or an AVTime output root (its stages, shards and judge passes)
                  (or FPSWEEP_PACKAGE)
  --wait          follow the progress until the worker ends (exit 0 done, 1 failed)
  --json          print the status object (schema: src/core/protocols/fp/status/statusSchema.ts)`;

export function run(args: string[]): Promise<number> {
  return statusVerb(args, PROTOCOLS);
}

export async function statusVerb(args: string[], registry: ProtocolRegistry): Promise<number> {
  const values = parseVerbArgs(args, { wait: { type: 'boolean' }, json: { type: 'boolean' } }, HELP);
  const { protocol, root } = await resolveRunRoot(registry, requirePackage(values, HELP));
  const read = () => (protocol.statusView ? protocol.statusView(root) : defaultStatusView(protocol, root));
  let view = await read();
  let last = '';
  while (values.wait && view.live) {
    if (view.line !== last && !values.json) process.stderr.write(view.line + '\n');
    last = view.line;
    await new Promise((r) => setTimeout(r, 2000));
    view = await read();
  }
  process.stdout.write((values.json ? JSON.stringify(view.json) : view.text) + '\n');
  if (values.wait) return view.ok ? 0 : 1;
  return 0;
}

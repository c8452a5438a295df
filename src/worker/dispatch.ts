// Which job the worker runs: `--protocol <id> --job '<JSON>'`, the protocol taken from the registry and the job
// checked by its schema. Every spawner builds these arguments with runner/control.ts's workerJobArgs; a worker is
// always started by the CLI of its own build, so no older form needs an alias.
import { exitFor } from '../core/errors';
import type { AnyProtocol, ProtocolRegistry } from '../core/protocols/types';
import type { JobRunners } from './jobRunners';
import { parseBoundedJson } from '../core/io/boundedJson';
import { redactStreams, registerEnvSecrets } from '../core/security/secrets';

export type WorkerCall = { protocol: AnyProtocol; job: unknown } | { usage: string };

const USAGE = 'usage: worker --protocol ID --job JSON (started by a run verb with --detach)';

/** The protocol and its checked job, or what is wrong with the arguments (exit 2). */
export function parseWorkerArgs(argv: readonly string[], registry: ProtocolRegistry): WorkerCall {
  const valueOf = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const id = valueOf('--protocol');
  const json = valueOf('--job');
  if (!id || !json) return { usage: USAGE };
  const protocol = registry.get(id);
  if (!protocol) return { usage: `worker: no protocol '${id}' (this build has: ${registry.ids.join(', ')})` };
  let raw: unknown;
  try {
    raw = parseBoundedJson(json);
  } catch (err) {
    return { usage: `worker: bad ${id} job: not JSON (${(err as Error).message})` };
  }
  const parsed = protocol.job.schema.safeParse(raw);
  if (!parsed.success) return { usage: `worker: bad ${id} job: ${parsed.error.message}` };
  return { protocol, job: parsed.data };
}

/** Runs the job the arguments name; resolves to the worker's exit code. */
export async function runWorker(argv: readonly string[], registry: ProtocolRegistry, runners: JobRunners, stderr: (s: string) => void): Promise<number> {
  const call = parseWorkerArgs(argv, registry);
  if ('usage' in call) {
    stderr(`${call.usage}\n`);
    return 2;
  }
  const run = runners[call.protocol.id];
  if (!run) {
    stderr(`worker: protocol '${call.protocol.id}' has no job runner in this build (src/worker/jobRunners.ts)\n`);
    return 2;
  }
  return run(call.job);
}

/**
 * A worker process's main: runs the job its arguments name and exits with its code. SIGHUP is ignored (the
 * session may lose its terminal: an SSH connection dropped); open handles (a pool socket, a timer) do not keep a
 * finished worker alive. src/worker/main.ts calls it with this build's run types; a plug-in or a test, with its own.
 */
export function workerMain(registry: ProtocolRegistry, runners: JobRunners): void {
  process.on('SIGHUP', () => undefined);
  registerEnvSecrets();
  redactStreams(); // stdout and stderr are runner.log: no secret reaches it
  runWorker(process.argv.slice(2), registry, runners, (s) => process.stderr.write(s)).then(
    (code) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), 2000).unref();
    },
    (err) => {
      // A runner that lets an error out: the user's exits 2 with its message, anything else 1 with its stack.
      const exit = exitFor(err);
      process.stderr.write(`${exit.text}\n`);
      process.exit(exit.code);
    },
  );
}

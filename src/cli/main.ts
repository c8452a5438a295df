// fpsweep <verb> --package DIR [options]: the same engine the extension drives.
import { exitFor } from '../core/errors';
import { redactStreams, registerEnvSecrets } from '../core/security/secrets';
import { sizeThreadPool } from '../core/runner/threadPool';
import { HelpRequested } from '../core/cli/options';
import { RUN_TYPE_VERBS } from './runTypeVerbs';
import type { VerbModule } from '../core/cli/verb';

// Lazy so that `fpsweep status` does not load sharp, undici, etc. The engine's verbs, Frames × Pixels' (top-level
// since before run types), then each run type's (runTypeVerbs.ts).
export const verbs: Readonly<Record<string, () => VerbModule>> = {
  sample: () => require('./verbs/sample'),
  prepare: () => require('./verbs/prepare'),
  doctor: () => require('./verbs/doctor'),
  'dry-run': () => require('./verbs/dryRun'),
  run: () => require('./verbs/run'),
  merge: () => require('./verbs/merge'),
  status: () => require('./verbs/status'),
  stop: () => require('./verbs/stop'),
  report: () => require('./verbs/report'),
  findings: () => require('./verbs/findings'),
  inspect: () => require('./verbs/inspect'),
  return: () => require('./verbs/return'),
  demo: () => require('./verbs/demo'),
  ...RUN_TYPE_VERBS,
};

function usage(): string {
  const lines = ['usage: fpsweep <verb> --package DIR [options]', '', 'verbs:'];
  for (const [name, load] of Object.entries(verbs)) lines.push(`  ${name.padEnd(name.length > 9 ? name.length + 1 : 9)} ${load().summary}`);
  lines.push('', 'Run `fpsweep <verb> --help` for the options of one verb.');
  return lines.join('\n');
}

/**
 * A run type may add a stage under another run type's verb (`'avtime caption'` in runTypeVerbs.ts: the caption run
 * type's own folder serves `fpsweep avtime caption …`), so the two-word verb is tried before the one-word one.
 */
export function pickVerb(argv: readonly string[], table: Readonly<Record<string, unknown>> = verbs): { verb: string; rest: string[] } {
  const two = argv.length > 1 ? `${argv[0]} ${argv[1]}` : '';
  if (two && table[two]) return { verb: two, rest: argv.slice(2) };
  return { verb: argv[0] ?? '', rest: argv.slice(1) };
}

export async function main(argv: string[]): Promise<number> {
  registerEnvSecrets();
  const restore = redactStreams(); // the terminal's chokepoint: no secret reaches stdout or stderr
  try {
    return await runVerb(argv);
  } finally {
    restore();
  }
}

async function runVerb(argv: string[]): Promise<number> {
  if (!argv[0] || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(usage() + '\n');
    return argv[0] ? 0 : 2;
  }
  const { verb, rest } = pickVerb(argv);
  const load = verbs[verb];
  if (!load) {
    process.stderr.write(`fpsweep: unknown verb '${verb}'\n\n${usage()}\n`);
    return 2;
  }
  try {
    return await load().run(rest);
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(err.help + '\n');
      return 0;
    }
    const exit = exitFor(err);
    process.stderr.write(`fpsweep ${verb}: ${exit.text}
`);
    return exit.code;
  }
}

if (require.main === module) {
  sizeThreadPool(); // before anything starts libuv's pool (threadPool.ts)
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(String(err?.stack ?? err) + '\n');
      process.exitCode = 1;
    },
  );
}

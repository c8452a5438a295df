// fpsweep <verb> --package DIR [options]: the same engine the extension drives.
import { exitFor } from '../core/errors';
import { sizeThreadPool } from '../core/runner/threadPool';

type VerbModule = { run(args: string[]): Promise<number>; summary: string };

// Lazy so that `fpsweep status` does not load sharp, undici, etc.
const verbs: Record<string, () => VerbModule> = {
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
  return: () => require('./verbs/return'),
  demo: () => require('./verbs/demo'),
  avtime: () => require('./verbs/avtime'),
};

function usage(): string {
  const lines = ['usage: fpsweep <verb> --package DIR [options]', '', 'verbs:'];
  for (const [name, load] of Object.entries(verbs)) {
    let summary: string;
    try {
      summary = load().summary;
    } catch {
      summary = '(not built yet)';
    }
    lines.push(`  ${name.padEnd(9)} ${summary}`);
  }
  lines.push('', 'Run `fpsweep <verb> --help` for the options of one verb.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(usage() + '\n');
    return verb ? 0 : 2;
  }
  const load = verbs[verb];
  if (!load) {
    process.stderr.write(`fpsweep: unknown verb '${verb}'\n\n${usage()}\n`);
    return 2;
  }
  try {
    return await load().run(rest);
  } catch (err) {
    const exit = exitFor(err);
    if (exit.code === 1 && (err as NodeJS.ErrnoException)?.code === 'MODULE_NOT_FOUND') {
      process.stderr.write(`fpsweep ${verb}: this verb is not built yet\n`);
      return 1;
    }
    process.stderr.write(`fpsweep ${verb}: ${exit.text}\n`);
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

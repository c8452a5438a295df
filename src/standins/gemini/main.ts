// `node dist/standin-gemini.js [--port 0] [--faults FILE]` (or bin/fake-gemini): the stand-in Gemini as a process,
// for `fpsweep demo` and for trying `fpsweep avtime caption --backend gemini --gemini-base-url URL` by hand. The
// key it accepts comes from FPSWEEP_STANDIN_GEMINI_KEY (never a flag: a launch line is visible to every user of the
// host). Its first line on stdout is `stand-in Gemini listening on http://127.0.0.1:PORT`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { faultsFileSchema, faultsFrom } from './faults';
import { startStandinGemini } from './server';

export const HELP = `usage: FPSWEEP_STANDIN_GEMINI_KEY=KEY bin/fake-gemini [--port N] [--faults FILE]

The stand-in Gemini: Google's Files API and generateContent as fpsweep's Gemini backend uses them, on 127.0.0.1, with
answers made from each clip's name (no network, no model). It accepts the key in FPSWEEP_STANDIN_GEMINI_KEY (never a
flag: a command line is visible to every user of the host) and prints \`stand-in Gemini listening on URL\` first.
  --port N        the port to listen on (default 0: a free one)
  --faults FILE   JSON of faults by clip-name prefix (429s, 503s, blocked answers, files never ACTIVE; see faults.ts)
  -h, --help      this text

Try the Gemini backend on it (a sample videos root, any key of your own making):
  export FPSWEEP_STANDIN_GEMINI_KEY=try-me GEMINI_API_KEY=try-me
  bin/fake-gemini &                                  # prints its URL
  fpsweep avtime caption-sample --out cap
  fpsweep avtime caption cap --backend gemini --model gemini-2.5-flash --gemini-base-url URL`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '0' }, faults: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return;
  }
  const apiKey = process.env.FPSWEEP_STANDIN_GEMINI_KEY;
  if (!apiKey) throw new Error('set FPSWEEP_STANDIN_GEMINI_KEY to the key the stand-in accepts (--help says how to try it)');
  const faults = values.faults ? faultsFrom(faultsFileSchema.parse(JSON.parse(readFileSync(values.faults, 'utf8')))) : undefined;
  const g = await startStandinGemini({ port: Number(values.port), apiKey, faults });
  process.stdout.write(`stand-in Gemini listening on ${g.url}\n`);
  const stop = () => void g.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`standin-gemini: ${(err as Error).message}\n\n${HELP}\n`);
  process.exit(err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS') ? 2 : 1);
});

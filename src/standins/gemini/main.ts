// `node dist/standin-gemini.js [--port 0] [--faults FILE]` (or bin/fake-gemini): the stand-in Gemini as a process,
// for `fpsweep demo` and for trying `fpsweep avtime caption --backend gemini --gemini-base-url URL` by hand. The
// key it accepts comes from FPSWEEP_STANDIN_GEMINI_KEY (never a flag: a launch line is visible to every user of the
// host). Its first line on stdout is `stand-in Gemini listening on http://127.0.0.1:PORT`.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { faultsFileSchema, faultsFrom } from './faults';
import { startStandinGemini } from './server';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, faults: { type: 'string' } }, strict: true });
  const apiKey = process.env.FPSWEEP_STANDIN_GEMINI_KEY;
  if (!apiKey) throw new Error('set FPSWEEP_STANDIN_GEMINI_KEY to the key the stand-in accepts');
  const faults = values.faults ? faultsFrom(faultsFileSchema.parse(JSON.parse(readFileSync(values.faults, 'utf8')))) : undefined;
  const g = await startStandinGemini({ port: Number(values.port), apiKey, faults });
  process.stdout.write(`stand-in Gemini listening on ${g.url}\n`);
  const stop = () => void g.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`standin-gemini: ${(err as Error).message}\n`);
  process.exit(1);
});

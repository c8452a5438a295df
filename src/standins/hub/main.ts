// `node dist/standin-hub.js --port 8990 --token hf_xxx[:write|:read] [--multipart-threshold BYTES]
//  [--chunk-size BYTES] [--fail-part N]`: the stand-in hub as a process, for trying
// `fpsweep return --upload --hub-url http://127.0.0.1:8990` by hand. Tokens come from the flags
// or FPSWEEP_STANDIN_HUB_TOKENS (comma-separated); the user is `tester`, member of GMLRVigil.
import { parseArgs } from 'node:util';
import { startStandinHub, type HubTokenInfo } from './server';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8990' },
      token: { type: 'string', multiple: true },
      'multipart-threshold': { type: 'string' },
      'chunk-size': { type: 'string' },
      'fail-part': { type: 'string', multiple: true },
    },
    strict: true,
  });
  const tokens: Record<string, HubTokenInfo> = {};
  const specs = [...(values.token ?? []), ...(process.env.FPSWEEP_STANDIN_HUB_TOKENS ?? '').split(',').filter(Boolean)];
  for (const spec of specs) {
    const [tok, role = 'write'] = spec.split(':');
    if (role !== 'read' && role !== 'write') throw new Error(`token role must be read or write, got ${role}`);
    tokens[tok] = { user: 'tester', role, orgs: ['GMLRVigil'] };
  }
  const hub = await startStandinHub({
    port: Number(values.port),
    tokens,
    multipartThreshold: values['multipart-threshold'] ? Number(values['multipart-threshold']) : undefined,
    chunkSize: values['chunk-size'] ? Number(values['chunk-size']) : undefined,
    failPartOnce: (values['fail-part'] ?? []).map(Number),
  });
  process.stdout.write(`stand-in hub listening on ${hub.url} (${Object.keys(tokens).length} token(s))\n`);
  const stop = () => void hub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`standin-hub: ${(err as Error).message}\n`);
  process.exit(1);
});

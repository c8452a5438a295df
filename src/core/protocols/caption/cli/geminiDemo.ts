// The stand-in Gemini for `fpsweep demo` (no GPU, no key, no network): bin/fake-gemini started with a key made for
// this demo only, its URL read from its first line; the caption steps then find both in their environment
// (GOOGLE_GEMINI_BASE_URL, the SDK's own variable, and GEMINI_API_KEY), as a user's would.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { DemoContext, DemoService } from '../../../cli/verb';

const START_TIMEOUT_MS = 60_000;

export async function startDemoGemini(ctx: DemoContext): Promise<DemoService | null> {
  if (!ctx.standIn || !ctx.repoRoot) return null;
  const bin = path.join(ctx.repoRoot, 'bin', 'fake-gemini');
  if (!existsSync(bin)) return null;
  const key = `demo-${randomBytes(16).toString('hex')}`;
  const child = spawn(bin, [], { env: { ...process.env, FPSWEEP_STANDIN_GEMINI_KEY: key }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the stand-in Gemini (${bin}) said nothing in ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    child.stdout.on('data', (c: Buffer) => {
      seen += c.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the stand-in Gemini (${bin}) exited with code ${code} before listening`));
    });
  }).catch((err: Error) => {
    child.kill('SIGTERM');
    throw err;
  });
  process.stderr.write(`demo: no Gemini key needed, captioning with the stand-in Gemini on ${url}\n`);
  return { env: { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: key }, stop: () => void child.kill('SIGTERM') };
}

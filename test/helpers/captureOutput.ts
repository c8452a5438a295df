// Runs an in-process CLI call with this process's stdout and stderr captured (restored whatever happens).
import { main } from '../../src/cli/main';

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export async function captureOutput(fn: () => Promise<number>): Promise<Captured> {
  const w = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  let out = '';
  let err = '';
  process.stdout.write = ((c: string | Uint8Array) => ((out += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((err += String(c)), true)) as typeof process.stderr.write;
  try {
    return { code: await fn(), out, err };
  } finally {
    process.stdout.write = w.out;
    process.stderr.write = w.err;
  }
}

/** `fpsweep <args>` in this process, captured. */
export const runCli = (args: string[]): Promise<Captured> => captureOutput(() => main(args));

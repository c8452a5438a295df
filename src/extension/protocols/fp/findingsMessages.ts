// The findings panel's two boundaries, checked with zod on the host: what `fpsweep findings --json` prints, and
// the arguments of the webview's flips request (its schema is in reportContract.ts, with the other requests').
import { findingsSchema, type Findings } from '../../../core/protocols/fp/findings/types';
import { errorLine } from '../../cli';

export { findingsFlipsArgsSchema } from './reportContract';

/** Parses `fpsweep findings --json` output, or says plainly why it cannot. */
export function parseFindingsOutput(code: number | null, stdout: string, stderr: string): Findings {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new Error(`fpsweep findings failed (exit ${code}): ${errorLine(stderr) || 'it printed no JSON'}`);
  }
  const parsed = findingsSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`fpsweep findings printed findings this extension does not understand (${i.path.join('.')}: ${i.message}).`);
  }
  return parsed.data;
}

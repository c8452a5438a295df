// The SFT prompts come from where AVTime-Bench's target prompt comes from: the bench root's prompts/ folder
// (BenchRoot.prompt). `target.txt` is the frozen LongVALE training prompt the bench sends; `system.txt` is the
// system message of the training rows [decided: the seed prints neither; one place holds both, never a copy].
import { promises as fs } from 'node:fs';
import { InputError } from '../../../../errors';
import { BenchRoot } from '../../stages/layout';
import type { SftPrompts } from './build';

export async function readSftPrompts(benchRoot: string): Promise<SftPrompts & { files: { system: string; user: string } }> {
  const bench = new BenchRoot(benchRoot);
  const files = { system: bench.prompt('system'), user: bench.prompt('target') };
  const read = (f: string, what: string) =>
    fs.readFile(f, 'utf8').catch(() => {
      throw new InputError(`${f} does not exist (${what}; --bench-root names the bench root whose prompts/ the SFT rows use)`);
    });
  return { system: await read(files.system, "the training rows' system prompt"), user: await read(files.user, 'the frozen target prompt'), files };
}

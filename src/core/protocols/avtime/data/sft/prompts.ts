// The SFT prompts come from where AVTime-Bench's target prompt comes from: a bench root's prompts/ folder
// (BenchRoot.prompt) when one is named, else the packaged prompts (../../prompts.ts, the one module that holds
// them). `target.txt` is the frozen LongVALE training prompt the bench sends; `system.txt` is the system message of
// the training rows [decided: the seed prints neither; one place holds both, never a copy].
import { promises as fs } from 'node:fs';
import { InputError } from '../../../../errors';
import { PACKAGED_PROMPTS_VERSION, PACKAGED_SYSTEM_PROMPT, PACKAGED_TARGET_PROMPT } from '../../prompts';
import { BenchRoot } from '../../stages/layout';
import type { SftPrompts } from './build';

/** Where each text came from: a file of the bench root, or `packaged:<version>:<name>`. */
export interface SftPromptSources {
  system: string;
  user: string;
}

export async function readSftPrompts(benchRoot: string | undefined): Promise<SftPrompts & { files: SftPromptSources }> {
  if (benchRoot === undefined) {
    const packaged = (name: string) => `packaged:${PACKAGED_PROMPTS_VERSION}:${name}`;
    return { system: PACKAGED_SYSTEM_PROMPT, user: PACKAGED_TARGET_PROMPT, files: { system: packaged('system'), user: packaged('target') } };
  }
  const bench = new BenchRoot(benchRoot);
  const files = { system: bench.prompt('system'), user: bench.prompt('target') };
  const read = (f: string, what: string) =>
    fs.readFile(f, 'utf8').catch(() => {
      throw new InputError(
        `${f} does not exist (${what}; --bench-root names the bench root whose prompts/ the SFT rows use; without it the packaged prompts are used)`,
      );
    });
  return { system: await read(files.system, "the training rows' system prompt"), user: await read(files.user, 'the frozen target prompt'), files };
}

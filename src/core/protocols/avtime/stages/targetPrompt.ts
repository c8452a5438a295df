// The frozen target prompt (the LongVALE training prompt, SPEC-AVTIME §1): the bench root's prompts/target.txt,
// read as it is and never written by the tool. AVTime-Bench's target requests and the direct DVC runner's
// --prompt-style train both take it from here.
import { promises as fs } from 'node:fs';
import { InputError } from '../../../errors';
import type { BenchRoot } from './layout';

export async function readTargetPrompt(bench: BenchRoot): Promise<{ file: string; text: string }> {
  const file = bench.prompt('target');
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new InputError(`${file} does not exist (the frozen target prompt; the tool never writes it)`);
  });
  return { file, text };
}

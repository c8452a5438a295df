// A deterministic reply from the request alone (same frames + same prompt → same answer, on any
// server, at any knob setting), in the forms a real model uses, sometimes with no letter at all.
import { createHash } from 'node:crypto';
import { plantedReply } from '../../core/protocols/fp/sample/planted';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Option count from the prompt's "(A) …" lines; 4 when the prompt lists none. */
export function optionCount(promptText: string): number {
  let n = 0;
  for (const line of promptText.split('\n')) {
    const m = /^\(([A-Z])\) /.exec(line);
    if (m) n = Math.max(n, LETTERS.indexOf(m[1]) + 1);
  }
  return n > 0 ? n : 4;
}

/**
 * The reply. A planted sample item (sample/planted.ts) is answered by its planted effect from the frames'
 * count and size (`dims`), for the findings demo; our own rule, no vLLM behaviour is imitated.
 */
export function standinAnswer(promptText: string, imageKeys: readonly string[], dims: readonly { width: number; height: number }[] = []): string {
  const planted = plantedReply(promptText, dims);
  if (planted !== null) return planted;
  const h = createHash('sha256').update(promptText);
  for (const k of imageKeys) h.update('\0').update(k);
  const d = h.digest();
  const letter = LETTERS[d.readUInt32BE(0) % optionCount(promptText)];
  const form = d[4] % 16;
  if (form === 0) return 'Unclear from the frames.';
  if (form <= 6) return letter;
  if (form <= 10) return `(${letter})`;
  if (form <= 13) return `The answer is ${letter}.`;
  return `${letter}.`;
}

/** A rough token count for the reply (Qwen's tokenizer gives ~1 token per short word or symbol). */
export function replyTokens(reply: string): number {
  return Math.max(1, reply.split(/(\s+|[().,:])/).filter((s) => s.trim() !== '').length);
}

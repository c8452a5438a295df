// The one prompt of the protocol (SPEC §3). Every request's text comes from here and nowhere else.

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const ANSWER_INSTRUCTION = "Answer with the option's letter from the given choices directly.";

export function optionLetter(index: number): string {
  if (!Number.isInteger(index) || index < 0 || index >= LETTERS.length) throw new RangeError(`no letter for option ${index}`);
  return LETTERS[index];
}

export function buildPromptText(question: string, options: readonly string[]): string {
  const lines = [`Question: ${question}`, 'Options:'];
  options.forEach((opt, i) => lines.push(`(${optionLetter(i)}) ${opt}`));
  lines.push(ANSWER_INSTRUCTION);
  return lines.join('\n');
}

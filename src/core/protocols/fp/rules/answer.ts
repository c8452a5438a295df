// The predicted letter (SPEC §3): a leading letter followed by `)`, `.`, `:`, `,`, a space or the end
// (optionally opened by `(`), else "answer is X", else empty.

const LEADING = /^\(?([A-Z])(?:[).:,\s]|$)/;
const ANSWER_IS = /answer is:?\s*\(?([A-Z])(?![A-Za-z])/i;

export function parseAnswerLetter(reply: string): string {
  const text = reply.trim();
  const lead = LEADING.exec(text);
  if (lead) return lead[1];
  const later = ANSWER_IS.exec(text);
  // The letter itself must be a capital: "the answer is a cat" names no option.
  if (later && /[A-Z]/.test(later[1])) return later[1];
  return '';
}

export function scoreAnswer(pred: string, answer: string): 0 | 1 {
  return pred !== '' && pred === answer ? 1 : 0;
}

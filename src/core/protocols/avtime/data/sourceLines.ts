// A JSONL input read for the data stages: every non-blank line kept with its exact text (what `split` copies
// out byte for byte), parsed and checked with a zod schema. Problems are collected with file:line; the caller
// refuses the whole input when there is any (SPEC-AVTIME-DATA "Common rules").
import { promises as fs } from 'node:fs';
import type { z } from 'zod';
import { InputError, formatLineProblem, type LineProblem } from '../../../errors';
import { describeZodError } from '../../../package/jsonl';

export interface SourceLine<T> {
  /** 1-based line number in the file. */
  line: number;
  /** The line's exact text, without its "\n" (a "\r" before it is kept: the line is copied as it was). */
  text: string;
  value: T;
}

export interface ReadSource<T> {
  bytes: Buffer;
  lines: SourceLine<T>[];
  problems: LineProblem[];
}

const MAX_SHOWN = 30;

/** Every problem of an input, the first 30 spelled out: exit 2, nothing written. */
export class DataInputError extends InputError {
  constructor(
    what: string,
    readonly problems: LineProblem[],
  ) {
    super(
      `${what} (${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing written):\n` +
        problems
          .slice(0, MAX_SHOWN)
          .map((p) => `  ${formatLineProblem(p)}`)
          .join('\n') +
        (problems.length > MAX_SHOWN ? `\n  (+${problems.length - MAX_SHOWN} more)` : ''),
    );
    this.name = 'DataInputError';
  }
}

export async function readInputBytes(file: string, flag: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** Strict UTF-8 (a replaced byte would break the exact copy), then line by line. Blank lines are not records. */
export function parseSourceLines<T>(bytes: Buffer, file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, expected: string): ReadSource<T> {
  const lines: SourceLine<T>[] = [];
  const { problems } = eachSourceLine(bytes, file, schema, expected, (l) => void lines.push(l));
  return { bytes, lines, problems };
}

/**
 * The same reading, each record handed to `onLine` as it is parsed, so a caller that keeps only what it derives
 * lets the parsed row go at once (at 50,000 rows, holding every parsed row doubles the garbage collector's work).
 */
export function eachSourceLine<T>(
  bytes: Buffer,
  file: string,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  expected: string,
  onLine: (l: SourceLine<T>) => void,
): { problems: LineProblem[] } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const line = firstBadUtf8Line(bytes);
    return { problems: [{ file, line, message: 'not valid UTF-8; expected a UTF-8 JSONL file' }] };
  }
  const problems: LineProblem[] = [];
  const raw = text.split('\n');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  raw.forEach((s, i) => {
    const line = i + 1;
    if (/^[ \t\r]*$/.test(s)) return; // blank: ASCII spaces, tabs and a CR only
    let json: unknown;
    try {
      json = JSON.parse(s);
    } catch (err) {
      problems.push({ file, line, message: `not valid JSON (${(err as Error).message}); expected ${expected}` });
      return;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) onLine({ line, text: s, value: parsed.data });
    else problems.push({ file, line, message: `${describeZodError(parsed.error)}; expected ${expected}` });
  });
  return { problems };
}

function firstBadUtf8Line(bytes: Buffer): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

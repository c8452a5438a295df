// A JSONL input read for the data stages: every non-blank line kept with its exact text (what `split` copies
// out byte for byte), parsed and checked with a zod schema. Problems are collected with file:line; the caller
// refuses the whole input when there is any (SPEC-AVTIME-DATA "Common rules").
import { isUtf8 } from 'node:buffer';
import { promises as fs } from 'node:fs';
import type { z } from 'zod';
import { InputError, formatLineProblem, type LineProblem } from '../../../errors';
import { describeZodError } from '../../../package/jsonl';
import { describeJsonError, JSON_BOUNDS, parseBoundedJson } from '../../../io/boundedJson';

export interface SourceLine<T> {
  /** 1-based line number in the file. */
  line: number;
  /** The line's exact text, without its "\n" (a "\r" before it is kept: the line is copied as it was). */
  text: string;
  /** Where that text lies in the input's bytes ([start, end), a leading BOM left out): copied out without re-encoding. */
  start: number;
  end: number;
  value: T;
}

/**
 * A schema for each line, and optionally a hand check of the common shape that returns the value exactly as the
 * schema would (the same keys in the same order) or null; a null goes to the schema, whose message names the fault.
 */
export interface LineSchema<T> {
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  fast?: (json: unknown) => T | null;
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
  const { problems } = eachSourceLine(bytes, file, { schema }, expected, (l) => void lines.push(l));
  return { bytes, lines, problems };
}

/**
 * The same reading, each record handed to `onLine` as it is parsed, so a caller that keeps only what it derives
 * lets the parsed row go at once (at 50,000 rows, holding every parsed row doubles the garbage collector's work).
 */
export function eachSourceLine<T>(
  bytes: Buffer,
  file: string,
  { schema, fast }: LineSchema<T>,
  expected: string,
  onLine: (l: SourceLine<T>) => void,
): { problems: LineProblem[] } {
  // The same acceptance as a fatal TextDecoder (well-formed UTF-8 only), checked in one native pass; then each line
  // is decoded on its own ("\n" never occurs inside a multi-byte sequence), so its bytes stay addressable.
  if (!isUtf8(bytes)) return { problems: [{ file, line: firstBadUtf8Line(bytes), message: 'not valid UTF-8; expected a UTF-8 JSONL file' }] };
  const problems: LineProblem[] = [];
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // the decoder drops it
  for (let start = bom, line = 1; start < bytes.length; line++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    const at = start;
    start = end + 1;
    if (end - at > JSON_BOUNDS.maxChars) {
      // Decoded, a line this long could pass V8's longest string; its bytes are over the bound either way.
      problems.push({ file, line, message: `a line of ${end - at} bytes, over the bound of ${JSON_BOUNDS.maxChars}; expected ${expected}` });
      continue;
    }
    const s = bytes.toString('utf8', at, end);
    if (/^[ \t\r]*$/.test(s)) continue; // blank: ASCII spaces, tabs and a CR only
    let json: unknown;
    try {
      json = parseBoundedJson(s);
    } catch (err) {
      problems.push({ file, line, message: `${describeJsonError(err)}; expected ${expected}` });
      continue;
    }
    const quick = fast?.(json) ?? null;
    if (quick !== null) {
      onLine({ line, text: s, start: at, end, value: quick });
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) onLine({ line, text: s, start: at, end, value: parsed.data });
    else problems.push({ file, line, message: `${describeZodError(parsed.error)}; expected ${expected}` });
  }
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

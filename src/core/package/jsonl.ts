// JSONL reader: every line is validated with a zod schema; a bad line becomes a LineProblem
// (file, 1-based line, what was expected) and the rest of the file is still read (SPEC §1, §4).
import { promises as fs } from 'node:fs';
import type { z } from 'zod';
import type { LineProblem } from '../errors';
import { describeJsonError, parseBoundedJson } from '../io/boundedJson';

export interface JsonlRecord<T> {
  line: number;
  value: T;
}

export interface JsonlResult<T> {
  records: JsonlRecord<T>[];
  problems: LineProblem[];
}

export interface JsonlOptions {
  /** What one line should be, for the problem message, e.g. 'an item line {"item_id", ...}'. */
  expected?: string;
}

/** One zod error as a short readable sentence: `answer: must be one letter A..Z; options: …`. */
export function describeZodError(err: z.ZodError): string {
  return (
    err.issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join('.') : '(value)'}: ${i.message}`)
      .join('; ') + (err.issues.length > 5 ? `; (+${err.issues.length - 5} more)` : '')
  );
}

/**
 * Validates the lines of a JSONL text. Blank lines are not records and are passed over; every other
 * line is either a record or a problem. `file` is only used to label problems.
 */
export function parseJsonlText<T>(text: string, file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, opts: JsonlOptions = {}): JsonlResult<T> {
  const records: JsonlRecord<T>[] = [];
  const problems: LineProblem[] = [];
  const expected = opts.expected ? `expected ${opts.expected}` : 'expected one JSON object per line';
  // A UTF-8 byte-order mark (some editors add one) is not part of the first record.
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    let s = text.slice(start, end);
    if (s.endsWith('\r')) s = s.slice(0, -1);
    start = end + 1;
    if (s.trim() === '') continue;
    let json: unknown;
    try {
      json = parseBoundedJson(s);
    } catch (err) {
      problems.push({ file, line, message: `${describeJsonError(err)}; ${expected}` });
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) records.push({ line, value: parsed.data });
    else problems.push({ file, line, message: `${describeZodError(parsed.error)}; ${expected}` });
  }
  return { records, problems };
}

/** readJsonl for a log that may not exist yet (before the first run): a missing file is empty, not an error. */
export async function readOptionalJsonl<T>(
  file: string,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  opts: JsonlOptions = {},
): Promise<JsonlResult<T> & { present: boolean }> {
  try {
    return { present: true, ...(await readJsonl(file, schema, opts)) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { present: false, records: [], problems: [] };
    throw err;
  }
}

/** Reads and validates a JSONL file. A missing file is an error for the caller (ENOENT is thrown). */
export async function readJsonl<T>(file: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>, opts: JsonlOptions = {}): Promise<JsonlResult<T>> {
  const text = await fs.readFile(file, 'utf8');
  return parseJsonlText(text, file, schema, opts);
}

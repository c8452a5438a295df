// Bounded JSON: every JSON text we did not make (an input line, a manifest, a model's or a hub's answer) is parsed
// here, its size checked first and its nesting depth counted by one linear scan before JSON.parse, so no input can
// reach anything recursive (JSON.stringify, zod, a renderer) deep enough to overflow the stack (issue 33, point 3).
import { promises as fs, readFileSync, statSync } from 'node:fs';
import { InputError } from '../errors';

export interface JsonBounds {
  /** Deepest nesting of arrays and objects accepted; ours never pass 20. */
  maxDepth: number;
  /** Longest text accepted, in UTF-16 units (a JSONL line, a whole JSON file). */
  maxChars: number;
}

/** 20 MB lines were accepted before this bound and still are; V8's longest string is ~512 M units. */
export const JSON_BOUNDS: Readonly<JsonBounds> = { maxDepth: 128, maxChars: 64 * 1024 * 1024 };

/** Too deep or too big: the user's input, so exit 2 with where it is and the bound (errors.ts). */
export class JsonBoundError extends InputError {
  constructor(
    message: string,
    where: { file: string; line?: number } | undefined,
    readonly bound: 'depth' | 'size',
  ) {
    super(message, where); // named 'InputError' by its parent, so isUserError matches a bundle's copy too
  }
}

export interface JsonWhere {
  file: string;
  line?: number;
}

/** The deepest nesting of `[`/`{` outside strings, stopping as soon as `limit` is passed (returns limit + 1). */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next unit (\" and \\ included)
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Throws JsonBoundError when `text` is bigger or deeper than the bounds; JSON.parse can then run safely. */
export function checkJsonBounds(text: string, where?: JsonWhere, bounds: JsonBounds = JSON_BOUNDS): void {
  if (text.length > bounds.maxChars) {
    throw new JsonBoundError(`JSON text of ${text.length} characters, over the bound of ${bounds.maxChars}`, where, 'size');
  }
  // A text shorter than the bound cannot nest deeper than it, so the common small line needs no scan.
  if (text.length > bounds.maxDepth && jsonDepth(text, bounds.maxDepth) > bounds.maxDepth) {
    throw new JsonBoundError(`JSON nested deeper than the bound of ${bounds.maxDepth} levels of arrays and objects`, where, 'depth');
  }
}

/**
 * JSON.parse with the bounds checked first. A syntax error is thrown as JSON.parse throws it (callers that name
 * "not valid JSON" keep doing so); a bound is a JsonBoundError, an InputError naming `file:line` when given.
 */
export function parseBoundedJson(text: string, where?: JsonWhere, bounds: JsonBounds = JSON_BOUNDS): unknown {
  checkJsonBounds(text, where, bounds);
  return JSON.parse(text) as unknown;
}

/**
 * What a line reader says of a line that `parseBoundedJson(text)` (no `where`) refused: the bound's own sentence,
 * else `not valid JSON (…)`. The reader adds `file:line`.
 */
export function describeJsonError(err: unknown): string {
  if (err instanceof JsonBoundError) return err.message;
  return `not valid JSON (${(err as Error).message})`;
}

function checkFileSize(file: string, size: number, bounds: JsonBounds): void {
  // UTF-8 is at least one byte per UTF-16 unit, so bytes over the bound are not read at all.
  if (size > bounds.maxChars) {
    throw new JsonBoundError(`a JSON file of ${size} bytes, over the bound of ${bounds.maxChars}`, { file }, 'size');
  }
}

/** Reads a whole JSON file (its size checked before it is read) and parses it bounded; errors name the file. */
export async function readBoundedJsonFile(file: string, bounds: JsonBounds = JSON_BOUNDS): Promise<unknown> {
  checkFileSize(file, (await fs.stat(file)).size, bounds);
  return parseBoundedJson(await fs.readFile(file, 'utf8'), { file }, bounds);
}

/** The same, synchronously. */
export function readBoundedJsonFileSync(file: string, bounds: JsonBounds = JSON_BOUNDS): unknown {
  checkFileSize(file, statSync(file).size, bounds);
  return parseBoundedJson(readFileSync(file, 'utf8'), { file }, bounds);
}

/**
 * For a value another parser built (js-yaml): the same depth bound, walked without recursion. YAML aliases can
 * share one node many times over, so the walk also stops after `maxNodes` visits rather than grow with the sharing.
 */
export function checkValueBounds(value: unknown, where: JsonWhere, maxDepth = JSON_BOUNDS.maxDepth, maxNodes = 1_000_000): void {
  const stack: [unknown, number][] = [[value, 0]];
  for (let visits = 0; stack.length > 0; visits++) {
    if (visits > maxNodes) throw new JsonBoundError(`more than ${maxNodes} values (the bound on a document's size)`, where, 'size');
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) throw new JsonBoundError(`nested deeper than the bound of ${maxDepth} levels`, where, 'depth');
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
}

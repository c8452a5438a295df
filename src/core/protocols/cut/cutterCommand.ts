// The user's cutter (`--cutter CMD`, SPEC-AVTIME-DATA §2): an argv template with {input}, {config} and {staging},
// filled per video, run as argv (never through a shell). Written as a shell-like line (quotes group words) or a JSON
// array of strings. Pure.
import { UsageError } from '../../errors';
import { parseBoundedJson } from '../../io/boundedJson';

export const PLACEHOLDERS = ['input', 'config', 'staging'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** Words of a command line: whitespace separates, '…' and "…" group (a backslash escapes inside "…" and outside). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`--cutter: an unclosed ${quote} in ${JSON.stringify(line)}`);
  if (inWord) words.push(word);
  return words;
}

/** The template's argv, checked: a program, {input} and {staging} used, no unknown {placeholder}. */
export function parseCutterTemplate(text: string): string[] {
  let argv: string[];
  if (text.trim().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = parseBoundedJson(text);
    } catch (err) {
      throw new UsageError(`--cutter: not a JSON array of strings: ${(err as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string')) throw new UsageError('--cutter: a JSON template must be an array of strings');
    argv = parsed;
  } else argv = splitCommandLine(text);
  if (argv.length === 0 || argv[0].trim() === '') throw new UsageError('--cutter: the command is empty');
  const used = new Set<string>();
  for (const w of argv) for (const m of w.matchAll(/\{([A-Za-z_]+)\}/g)) used.add(m[1]);
  const unknown = [...used].filter((u) => !(PLACEHOLDERS as readonly string[]).includes(u));
  if (unknown.length) throw new UsageError(`--cutter: unknown placeholder ${unknown.map((u) => `{${u}}`).join(', ')} (known: {input}, {config}, {staging})`);
  for (const need of ['input', 'staging'] as const) if (!used.has(need)) throw new UsageError(`--cutter: the command must use {${need}}`);
  return argv;
}

export const usesPlaceholder = (argv: readonly string[], p: Placeholder) => argv.some((w) => w.includes(`{${p}}`));

/** The argv for one video: each placeholder replaced where it stands (inside a word too, as in --out={staging}). */
export function fillCutterTemplate(argv: readonly string[], values: Readonly<Record<Placeholder, string | null>>): string[] {
  return argv.map((w) =>
    w.replace(/\{(input|config|staging)\}/g, (_, p: Placeholder) => {
      const v = values[p];
      if (v === null) throw new UsageError(`--cutter uses {${p}} but no value was given (pass --config FILE)`);
      return v;
    }),
  );
}

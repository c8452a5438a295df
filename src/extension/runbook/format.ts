// The runbook file (`*.fpsweep-runbook`): JSON, cells as markdown or one `fpsweep <verb> …` step each.
// No vscode here: the serializer adapts it, tests run it under plain mocha.
import { z } from 'zod';
import { InputError } from '../../core/errors';
import { describeJsonError, parseBoundedJson } from '../../core/io/boundedJson';

export const runbookSchema = z.object({
  fpsweepRunbook: z.literal(1),
  cells: z.array(z.object({ kind: z.enum(['markdown', 'step']), value: z.string() })),
});
export type Runbook = z.infer<typeof runbookSchema>;

export function parseRunbook(text: string, file = 'runbook', sections: readonly RunbookSection[] = []): Runbook {
  if (text.trim() === '') return defaultRunbook(sections);
  let json: unknown;
  try {
    json = parseBoundedJson(text);
  } catch (err) {
    throw new InputError(describeJsonError(err), { file });
  }
  const r = runbookSchema.safeParse(json);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new InputError(`${i.path.join('.') || '(root)'}: ${i.message}`, { file });
  }
  return r.data;
}

export function stringifyRunbook(r: Runbook): string {
  return JSON.stringify(runbookSchema.parse(r), null, 2) + '\n';
}

/** A run type's part of the runbook (protocols/<id>/…Runbook.ts): the verbs it answers, its cells, its check. */
export interface RunbookSection {
  /** The step verbs it owns (`fpsweep <verb> …`). */
  verbs: readonly string[];
  /** Its cells of a new runbook (markdown and steps), in order. */
  cells(): Runbook['cells'];
  /** Checks a step's words after its verb; throws an InputError that says what is allowed. */
  check?(verb: string, args: readonly string[]): void;
}

/** A new runbook: every run type's cells, in the registry's order. */
export function defaultRunbook(sections: readonly RunbookSection[]): Runbook {
  return { fpsweepRunbook: 1, cells: sections.flatMap((s) => s.cells()) };
}

export interface ParsedStep {
  verb: string;
  args: string[];
}

/** `fpsweep run --pilot --detach` → {verb:'run', args:['--pilot','--detach']}. Quotes group words. */
export function parseStep(text: string, sections: readonly RunbookSection[]): ParsedStep {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('#'));
  if (!line) throw new InputError('empty step: write one line such as `fpsweep dry-run`');
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2] ?? m[3]);
  if (words[0] === 'fpsweep') words.shift();
  const verb = words.shift() ?? '';
  const section = sections.find((s) => s.verbs.includes(verb));
  if (!section) throw new InputError(`unknown step '${verb}': one of ${sections.flatMap((s) => s.verbs).join(', ')}`);
  section.check?.(verb, words);
  if (words.includes('--package') || words.includes('-p')) {
    throw new InputError("a step runs on the runbook's own package: leave out --package");
  }
  return { verb, args: words };
}

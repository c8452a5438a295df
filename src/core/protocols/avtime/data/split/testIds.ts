// The frozen test-id list (`--test-ids FILE`, JSONL lines `{"id"}`), read strictly: a duplicate is an input error.
import { z } from 'zod';
import type { LineProblem } from '../../../../errors';
import { parseSourceLines } from '../sourceLines';

const testIdSchema = z.object({ id: z.string().min(1) }).passthrough();

export function parseTestIds(bytes: Buffer, file: string): { ids: { id: string; line: number }[]; problems: LineProblem[] } {
  const read = parseSourceLines(bytes, file, testIdSchema, 'a test id line {"id": non-empty string}');
  const problems = [...read.problems];
  const at = new Map<string, number>();
  const ids: { id: string; line: number }[] = [];
  for (const l of read.lines) {
    const first = at.get(l.value.id);
    if (first !== undefined) problems.push({ file, line: l.line, message: `id '${l.value.id}' already on line ${first}; expected unique test ids` });
    else {
      at.set(l.value.id, l.line);
      ids.push({ id: l.value.id, line: l.line });
    }
  }
  return { ids, problems };
}

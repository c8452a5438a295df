// The direct DVC runner's input rows (seed Part III §7, SPEC-AVTIME-DATA §6): one video and a stable video id
// per row, no reference. Every problem is collected with file:line and the whole input refused (exit 2).
import { z } from 'zod';
import { InputError, type LineProblem } from '../../../../errors';
import { DataInputError, parseSourceLines, readInputBytes } from '../sourceLines';
import { messageSchema } from '../rowSchema';

export type PromptStyle = 'train' | 'jsonl';

export const dvcRowSchema = z
  .object({
    id: z.string().min(1),
    videos: z.array(z.string()),
    messages: z.array(messageSchema).default([]),
    metadata: z.object({ video_id: z.string().min(1), duration_ms: z.number().int().positive().optional() }).passthrough(),
  })
  .passthrough();

export const DVC_ROW_LINE = 'a row {"id": str, "videos": [one absolute path], "messages": [{"role", "content"}], "metadata": {"video_id": str, ...}}';

export interface DvcRow {
  line: number;
  id: string;
  video_id: string;
  video: string;
  duration_ms: number | undefined;
  /** The text sent after the video under --prompt-style jsonl (null under train: the row's text is not read). */
  userText: string | null;
}

/**
 * The text of a user message [decided: the seed says only "whose content can be extracted"]: a string, or the
 * `text` parts of a content list joined by "\n"; the `<video>` placeholder is the video part itself, so it is
 * removed, and what is left is trimmed. Empty → null.
 */
export function userMessageText(content: unknown): string | null {
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const parts = content.flatMap((p) =>
      p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string'
        ? [(p as { text: string }).text]
        : [],
    );
    text = parts.join('\n');
  } else return null;
  const left = text.split('<video>').join('').trim();
  return left === '' ? null : left;
}

/** The first user message that yields text, else null. */
export function rowUserText(messages: readonly { role: string; content?: unknown }[]): string | null {
  for (const m of messages) {
    if (m.role !== 'user') continue;
    const t = userMessageText(m.content);
    if (t !== null) return t;
  }
  return null;
}

/** Rows in file order; refuses the whole file on any problem (bad line, duplicate id, a reference, no text). */
export async function readDvcRows(file: string, style: PromptStyle): Promise<{ rows: DvcRow[]; bytes: Buffer }> {
  const bytes = await readInputBytes(file, '--jsonl');
  const parsed = parseSourceLines(bytes, file, dvcRowSchema, DVC_ROW_LINE);
  const problems: LineProblem[] = [...parsed.problems];
  const rows: DvcRow[] = [];
  const seen = new Map<string, number>();
  for (const { line, value: r } of parsed.lines) {
    const bad = (message: string) => problems.push({ file, line, message });
    const first = seen.get(r.id);
    if (first !== undefined) bad(`id '${r.id}' is already used on line ${first}: ids must be unique (resume skips by id)`);
    else seen.set(r.id, line);
    if (r.messages.some((m) => m.role === 'assistant')) bad('messages: an assistant message (a reference) must not reach inference; remove it');
    if (r.videos.length !== 1) bad(`videos: expected exactly one video, got ${r.videos.length}`);
    else if (!r.videos[0].startsWith('/')) bad(`videos[0]: '${r.videos[0]}' is not an absolute path`);
    const userText = style === 'jsonl' ? rowUserText(r.messages) : null;
    if (style === 'jsonl' && userText === null)
      bad('messages: --prompt-style jsonl needs a user message with text (string content, or text parts, besides <video>)');
    rows.push({ line, id: r.id, video_id: r.metadata.video_id, video: r.videos[0] ?? '', duration_ms: r.metadata.duration_ms, userText });
  }
  if (problems.length)
    throw new DataInputError(
      `--jsonl ${file}: not a DVC input`,
      problems.sort((a, b) => a.line - b.line),
    );
  if (rows.length === 0) throw new InputError(`--jsonl ${file}: no rows (nothing to ask)`);
  return { rows, bytes };
}

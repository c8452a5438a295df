// One complete-video record as the data stages read it (SPEC-AVTIME-DATA §1): the fields the rules use are typed,
// every other key is kept as it is (a row is copied or re-emitted, never trimmed of what it carries).
import { z } from 'zod';

export const messageSchema = z.object({ role: z.string(), content: z.unknown() }).passthrough();

export const sourceRowSchema = z
  .object({
    id: z.string().optional(),
    videos: z.array(z.string()).optional(),
    messages: z.array(messageSchema).optional(),
    metadata: z
      .object({
        source: z.string().nullish(),
        input_video: z.string().nullish(),
        duration_ms: z.number().nullish(),
        duration_sec: z.number().nullish(),
        event_count: z.number().nullish(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

export type SourceRow = z.infer<typeof sourceRowSchema>;
export type Message = z.infer<typeof messageSchema>;

export const SOURCE_ROW_LINE = 'a record {"id": str, "videos": [str], "messages": [{"role", "content"}], "metadata": {...}}';

// The keys the schema types, in its order: zod's output puts these first, in this order, then the other keys.
const ROW_KEYS = ['id', 'videos', 'messages', 'metadata'];
const MESSAGE_KEYS = ['role', 'content'];
const METADATA_KEYS = ['source', 'input_video', 'duration_ms', 'duration_sec', 'event_count'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const orNull = (v: unknown, type: 'string' | 'number') => v === undefined || v === null || typeof v === type;

/** The object's keys are already in the order zod's output would give them (so the value can stand for that output). */
function inSchemaOrder(o: Record<string, unknown>, known: readonly string[]): boolean {
  let next = 0;
  let extra = false;
  for (const k of Object.keys(o)) {
    const i = known.indexOf(k);
    if (i < 0) {
      if (k === '__proto__') return false; // zod's copy would set the prototype instead of a key
      extra = true;
    } else if (extra || i < next) return false;
    else next = i + 1;
  }
  return true;
}

/**
 * The hand check of `sourceRowSchema` for the data stages' hot loop: the parsed JSON itself when the schema would
 * accept it and give an equal value with the same key order, else null (the caller then asks the schema, whose
 * message names the fault). Saves the schema's copy of every row.
 */
export function asSourceRow(json: unknown): SourceRow | null {
  if (!isObject(json) || !inSchemaOrder(json, ROW_KEYS)) return null;
  const { id, videos, messages, metadata } = json;
  if (id !== undefined && typeof id !== 'string') return null;
  if (videos !== undefined && !(Array.isArray(videos) && videos.every((v) => typeof v === 'string'))) return null;
  if (messages !== undefined) {
    if (!Array.isArray(messages)) return null;
    for (const m of messages as unknown[]) if (!isObject(m) || typeof m.role !== 'string' || !inSchemaOrder(m, MESSAGE_KEYS)) return null;
  }
  if (metadata !== undefined) {
    if (!isObject(metadata) || !inSchemaOrder(metadata, METADATA_KEYS)) return null;
    if (!orNull(metadata.source, 'string') || !orNull(metadata.input_video, 'string')) return null;
    if (!orNull(metadata.duration_ms, 'number') || !orNull(metadata.duration_sec, 'number') || !orNull(metadata.event_count, 'number')) return null;
  }
  return json as SourceRow;
}

/** What the data stages read each line with: the hand check first, the schema for the rest. */
export const SOURCE_ROW = { schema: sourceRowSchema, fast: asSourceRow };

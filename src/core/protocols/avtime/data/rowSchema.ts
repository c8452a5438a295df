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

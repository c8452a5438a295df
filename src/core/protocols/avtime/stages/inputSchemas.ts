// The bench root's input lines (SPEC-AVTIME §1) and the target-input line (§2), as zod schemas.
import { z } from 'zod';

/** Message keys are checked by the builder itself (a clear "extra key" message), so any object passes here. */
export const testRowSchema = z
  .object({
    id: z.string().min(1),
    videos: z.array(z.string()),
    messages: z.array(z.record(z.string(), z.unknown())),
    metadata: z.object({ video_id: z.string().min(1), duration_ms: z.number().int().positive().optional() }).passthrough(),
  })
  .passthrough();
export type TestRow = z.infer<typeof testRowSchema>;

export const inventoryRowSchema = z
  .object({
    stable_id: z.string().min(1),
    video_id: z.string().min(1),
    duration_ms: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256: 64 lowercase hex digits'),
    resolved_media_path: z.string().min(1),
  })
  .passthrough();
export type InventoryRow = z.infer<typeof inventoryRowSchema>;

const messageSchema = z.object({ role: z.enum(['system', 'user']), content: z.unknown() }).strict();

export const targetInputSchema = z
  .object({
    id: z.string().min(1),
    videos: z.tuple([z.string().startsWith('/')]),
    messages: z.tuple([messageSchema.extend({ role: z.literal('system') }), messageSchema.extend({ role: z.literal('user') })]),
    metadata: z
      .object({
        video_id: z.string().min(1),
        stable_id: z.string().min(1),
        duration_ms: z.number().int().positive(),
        media_sha256: z.string(),
        test_row_sha256: z.string(),
      })
      .strict(),
  })
  .strict();
export type TargetInput = z.infer<typeof targetInputSchema>;

export const TARGET_INPUT_LINE = 'a target input {"id", "videos": [path], "messages": [system, user], "metadata": {...}}';

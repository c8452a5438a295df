// `benchmark_reference_manifest.jsonl` lines (SPEC-AVTIME §5): the private queries, one per line.

import { z } from 'zod';

export const AxisSchema = z.enum(['A', 'V']);
export type Axis = z.infer<typeof AxisSchema>;

export const RelationSchema = z.enum(['before', 'after', 'overlap']);
export type Relation = z.infer<typeof RelationSchema>;

const msInt = z.number().int().nonnegative().refine(Number.isSafeInteger, 'a safe integer');
const caption = z.string().min(1, 'an empty caption');

/** Half-open [start, end) in ms, non-empty. */
export const IntervalMsSchema = z.tuple([msInt, msInt]).refine(([s, e]) => s < e, { message: 'an interval [start, end) needs start < end' });

const common = {
  query_id: z.string().min(1),
  video_id: z.string().min(1),
  axis: AxisSchema,
};

export const T2EQuerySchema = z
  .object({
    ...common,
    direction: z.literal('t2e'),
    time_ms: msInt,
    reference_captions: z.array(caption).min(1, 'a t2e query needs at least one reference caption'),
  })
  .strict();

export const E2TQuerySchema = z
  .object({
    ...common,
    direction: z.literal('e2t'),
    reference_caption: caption,
    reference_interval_ms: IntervalMsSchema,
  })
  .strict();

const ReferenceEventSchema = z.object({ caption, interval_ms: IntervalMsSchema }).strict();

export const E2EQuerySchema = z
  .object({
    ...common,
    direction: z.literal('e2e'),
    events: z.tuple([ReferenceEventSchema, ReferenceEventSchema]),
    /** Event 0 relative to event 1. */
    relation: RelationSchema,
  })
  .strict();

export const QuerySchema = z.discriminatedUnion('direction', [T2EQuerySchema, E2TQuerySchema, E2EQuerySchema]);

export type T2EQuery = z.infer<typeof T2EQuerySchema>;
export type E2TQuery = z.infer<typeof E2TQuerySchema>;
export type E2EQuery = z.infer<typeof E2EQuerySchema>;
export type Query = z.infer<typeof QuerySchema>;
export type Direction = Query['direction'];

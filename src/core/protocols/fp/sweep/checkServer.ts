// Before a sweep: which model each server serves, and whether it holds FP's full context.
import { z } from 'zod';
import { ContextLengthError } from '../../../serving/contextLength';
import type { VllmClient } from '../../../serving/client';
import { MAX_MODEL_LEN, MODEL } from '../rules/constants';

const modelsSchema = z
  .object({
    data: z.array(z.object({ id: z.string(), root: z.string().optional(), max_model_len: z.number().int().optional() }).passthrough()).min(1),
  })
  .passthrough();

/**
 * Checks one running server: which model it serves and with what context. A max_model_len below
 * 65,536 is a ContextLengthError. Returns the served model id.
 */
export async function checkServer(client: VllmClient): Promise<{ model: string; maxModelLen: number | null }> {
  const res = await client.get('/v1/models', 10_000);
  if (res.status !== 200) throw new Error(`${client.endpoint.url}/v1/models answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
  const parsed = modelsSchema.safeParse(JSON.parse(res.text));
  if (!parsed.success) throw new Error(`${client.endpoint.url}/v1/models: unexpected body`);
  const m = parsed.data.data.find((d) => d.id === MODEL || d.root === MODEL) ?? parsed.data.data[0];
  const len = m.max_model_len ?? null;
  if (len !== null && len < MAX_MODEL_LEN) {
    throw new ContextLengthError(
      `${client.endpoint.url} serves ${m.id} with max_model_len ${len} < ${MAX_MODEL_LEN}: ` +
        'the fps ladders need the full context; restart it with --max-model-len 65536 (the run never lowers it)',
      { server: client.endpoint.url, needed: MAX_MODEL_LEN, held: len },
    );
  }
  return { model: m.id, maxModelLen: len };
}

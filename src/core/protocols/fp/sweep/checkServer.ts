// Before a sweep: which model each server serves, and whether it holds FP's full context.
import { ContextLengthError } from '../../../serving/contextLength';
import { servedModels, type ProbeClient } from '../../../serving/serverProbe';
import { MAX_MODEL_LEN, MODEL } from '../rules/constants';

/**
 * Checks one running server: which model it serves and with what context. A max_model_len below
 * 65,536 is a ContextLengthError. Returns the served model id.
 */
export async function checkServer(client: ProbeClient): Promise<{ model: string; maxModelLen: number | null }> {
  const models = await servedModels(client);
  const m = models.find((d) => d.id === MODEL || d.root === MODEL) ?? models[0];
  const len = m.maxModelLen;
  if (len !== null && len < MAX_MODEL_LEN) {
    throw new ContextLengthError(
      `${client.endpoint.url} serves ${m.id} with max_model_len ${len} < ${MAX_MODEL_LEN}: ` +
        'the fps ladders need the full context; restart it with --max-model-len 65536 (the run never lowers it)',
      { server: client.endpoint.url, needed: MAX_MODEL_LEN, held: len },
    );
  }
  return { model: m.id, maxModelLen: len };
}

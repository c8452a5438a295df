// The servers a run sends to, behind one small interface: launched by the serving layer's launcher
// (one per GPU) or given with --endpoints. The runner needs their URLs, the served model name, and
// health changes (down / restarting / up) to move work; a server that cannot serve the protocol's
// context is a fatal condition that stops the run (the context is never lowered).
import { z } from 'zod';
import { ContextLengthError } from '../serving/contextLength';
import type { VllmClient, Endpoint } from '../serving/client';
import { MAX_MODEL_LEN, MODEL } from '../protocols/fp/rules/constants';

import type { ServerState } from '../serving/serverState';

export interface ServerEvent {
  index: number;
  state: ServerState;
  /** `down` for the rest of the run (the launcher gave up on it); the run goes on with the others. */
  final: boolean;
  message?: string;
}

export interface ServerSet {
  endpoints: Endpoint[];
  /** The name the servers serve the model under (the `model` field of each request). */
  servedModel: string;
  /** Health changes, as the launcher reports them. */
  onEvent(listener: (e: ServerEvent) => void): void;
  restarts(index: number): number;
  /** Aborted when the server stops being up: in-flight requests are cut and re-queued at once. */
  upSignal?(index: number): AbortSignal;
  /** The state at hand-over (a given endpoint may be down from the start). */
  initialState?(index: number): ServerState;
  close(): Promise<void>;
}

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

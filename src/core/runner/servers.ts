// The servers a run sends to, behind one small interface: launched by the serving layer's launcher
// (one per GPU) or given with --endpoints. The runner needs their URLs, the served model name, and
// health changes (down / restarting / up) to move work; a server that cannot serve the protocol's
// context is a fatal condition that stops the run (the context is never lowered).
import type { Endpoint } from '../serving/client';

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
  /** The processes of the servers this run launched (none for given endpoints): the host CPU's split (hostCpuProc.ts). */
  serverPids?(): number[];
  /** Tokens the server's KV cache holds, when known (its GPU's memory): the run's in-flight budget. */
  kvTokens?(index: number): number | null;
  close(): Promise<void>;
}

// The servers a request runner sends to, made from what a run has: a launcher's fleet or given endpoints.
// One HTTP client per server (its connections: the most requests the run keeps in flight there); the up
// signal is read at each request, so a restarted server's new incarnation is the one listened to.
import { VllmClient, type ClientOptions, type Endpoint } from '../serving/client';
import type { Fleet } from '../serving/launcher';
import type { RequestServers } from './requestRunner';

export interface ClientServers<B> extends RequestServers<B> {
  close(): Promise<void>;
}

/** `endpoints[i].signal` (when there is one) is read live: it may be a getter. */
export function clientServers<B extends object>(
  endpoints: readonly (Endpoint & { readonly signal?: AbortSignal })[],
  clientOptions: ClientOptions,
): ClientServers<B> {
  const clients = endpoints.map((e) => new VllmClient({ url: e.url, apiKey: e.apiKey }, clientOptions));
  return {
    urls: endpoints.map((e) => e.url),
    senders: clients,
    upSignal: (i) => endpoints[i].signal,
    close: async () => void (await Promise.all(clients.map((c) => c.close()))),
  };
}

/** The fleet's servers, each listened to through its live up signal. */
export function fleetServers<B extends object>(fleet: Pick<Fleet, 'handles'>, clientOptions: ClientOptions): ClientServers<B> {
  return clientServers<B>(
    fleet.handles.map((h) => ({
      url: h.url,
      apiKey: h.apiKey,
      get signal() {
        return h.upSignal;
      },
    })),
    clientOptions,
  );
}

// The direct DVC runner's requests: every row to ask through the engine's request runner, on whichever server
// has room (no pinning: the raw file is one), each answer appended (one write + fsync) as it comes.
// Continue-on-error records a failed row and goes on (a lost server's row goes elsewhere); otherwise the first
// failed row stops the requests, in-flight ones cut (no error for them).
import type { RunControl, RunnerJob } from '../../../../runner/requestRunner';
import { RequestRunner } from '../../../../runner/requestRunner';
import { requeueLostServers, type ServerReach } from '../../../../runner/requestChannel';
import { clientServers } from '../../../../runner/requestServers';
import type { AppendFile } from '../../../../runner/appendFile';
import type { ClientOptions, Endpoint } from '../../../../serving/client';
import type { Fleet } from '../../../../serving/launcher';
import { askTarget, type RowError, type TargetAsk, type TargetRow } from '../../stages/targetRow';
import type { TargetRequestBody } from '../../stages/targetRequest';

export interface SendRowsOptions {
  rows: readonly TargetRow[];
  endpoints: readonly (Endpoint & { readonly signal?: AbortSignal })[];
  ask: TargetAsk;
  out: AppendFile;
  continueOnError: boolean;
  /** Requests in flight per server. */
  batch: number;
  clientOptions?: ClientOptions;
  log: (line: string) => void;
  /** --base-url's unreachable rule: while every server is lost, their rows stay to do (runner/unreachableRule.ts). */
  reach?: ServerReach;
  /** With `reach`: the servers' fleet, so a server whose /health says down is not sent to until it is up. */
  fleet?: Pick<Fleet, 'on' | 'handles'>;
}

export async function sendRows(control: RunControl, o: SendRowsOptions): Promise<{ written: number; errors: RowError[] }> {
  const servers = clientServers<TargetRequestBody>(o.endpoints, { connections: o.batch, ...o.clientOptions });
  const jobs = o.rows.map((row) => ({ key: row.id, tasks: [{ key: row.id, group: row.id, cost: 1 }], row }) satisfies RunnerJob & { row: TargetRow });
  const errors: RowError[] = [];
  let written = 0;
  const lost = requeueLostServers();
  const runner = new RequestRunner<(typeof jobs)[number], TargetRequestBody>(
    control,
    servers,
    {
      execute: async (_task, { row }, server, requeues, channel) => {
        const res = await askTarget(row, o.ask, server, requeues, channel);
        if (res.kind === 'requeue') return 'requeue';
        if (res.kind === 'answer') {
          await o.out.append(JSON.stringify(res.line) + '\n', true);
          written++;
        } else {
          errors.push(res.error);
          o.log(`${row.id} failed (${res.error.kind}): ${res.error.message}`);
        }
        return 'done';
      },
    },
    {
      slots: o.endpoints.map(() => ({ capacity: o.batch })),
      policy: (f) => (o.continueOnError ? lost(f) : 'stop'),
      reach: o.reach,
      fleet: o.reach ? o.fleet : undefined,
    },
  );
  try {
    await runner.run(jobs);
  } finally {
    await servers.close();
  }
  return { written, errors };
}

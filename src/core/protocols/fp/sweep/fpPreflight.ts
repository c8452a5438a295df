// The pre-flight gate of a Frames × Pixels sweep: one real unit to each server that is up, before any
// row (preflight.ts here builds and checks it); the outcome goes to logs/preflight.json. Returns the
// reason to stop the run, or null when every server answered as the sweep needs.
import type { PackageLayout } from '../package/layout';
import { fpAdviseFailure } from './fpAdvice';
import type { FrameSource } from './frameSource';
import { buildProbe, preflightServers, writePreflight } from './preflight';
import type { PreflightRecord } from './preflightSchema';
import type { StopReason } from '../../../runner/stopReason';
import type { VllmClient } from '../../../serving/client';
import type { VideoWork } from '../plan';

export async function preflightGate(
  layout: PackageLayout,
  run: {
    runId: string;
    videos: readonly VideoWork[];
    frames: FrameSource;
    servedModel: string;
    clients: readonly VllmClient[];
    urls: readonly string[];
    upAtStart: readonly number[];
    log: (line: string) => Promise<void>;
    /** ffmpeg was stopped by a signal from outside: the run is being stopped (it drains; no pre-flight is recorded). */
    interrupted: (why: string) => void;
  },
): Promise<StopReason | null> {
  const { upAtStart } = run;
  const built = await buildProbe(layout, run.videos, run.frames);
  if (built.interrupted) {
    run.interrupted(built.interrupted);
    return null;
  }
  const pre: PreflightRecord = {
    run_id: run.runId,
    ts: new Date().toISOString(),
    ok: !built.probe && !built.problem,
    unit: built.probe?.info ?? null,
    problem: built.problem,
    servers: [],
  };
  if (built.probe) {
    try {
      pre.servers = await preflightServers(
        built.probe,
        run.servedModel,
        upAtStart.map((i) => run.clients[i]),
        upAtStart.map((i) => run.urls[i]),
      );
    } finally {
      built.probe.release();
    }
    pre.ok = pre.servers.length > 0 && pre.servers.every((x) => x.ok);
  }
  await writePreflight(layout, pre);
  const probeName = pre.unit
    ? `${pre.unit.benchmark}/${pre.unit.item_id}/${pre.unit.condition} (${pre.unit.n_frames} frame(s)` +
      `${pre.unit.width ? ` ${pre.unit.width}×${pre.unit.height}` : ''} as ${pre.unit.frames_as})`
    : '(no unit)';
  if (pre.ok) {
    await run.log(
      `pre-flight ok: ${probeName} → ${
        pre.servers
          .map((x) => `${x.endpoint} prompt_tokens ${x.prompt_tokens} ` + `(predicted ${pre.unit?.predicted_prompt_tokens ?? '?'}), finish ${x.finish_reason}`)
          .join('; ') || 'nothing to send'
      }`,
    );
    return null;
  }
  const bad = pre.servers.find((x) => !x.ok);
  const message = bad?.problem ?? pre.problem ?? 'no server is up';
  const a = bad ? { meaning: bad.meaning!, action: bad.action! } : fpAdviseFailure(message, null, built.problem ? 'decode' : 'server_down');
  return {
    rule: 'preflight',
    kind: bad ? 'request' : built.problem ? 'decode' : 'server_down',
    message,
    meaning: a.meaning,
    action: a.action,
    server: bad?.endpoint ?? null,
    detail: `pre-flight failed${bad ? ` on ${bad.endpoint}` : ''}: ${probeName}; no sweep work was done`,
  };
}

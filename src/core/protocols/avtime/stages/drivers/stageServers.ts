// A stage's servers: the role's options (model, revision, GPU groups, TP, ports, given endpoints, executable)
// read from the run's options in one place, started with the stage's log, timeout and stop.
import { startServers, type AvtimeServers } from '../servers';
import type { ServerRole } from '../roleLaunch';
import type { AvtimeOptions } from '../options';
import type { StageContext } from './context';

/** The part of startServers' options that is the role's own, from the run's options. */
export function roleServerOptions(role: ServerRole, opts: AvtimeOptions) {
  if (role === 'target') {
    return {
      model: opts.targetModel,
      revision: opts.targetRevision,
      groups: opts.targetGpus,
      tp: opts.targetTp,
      basePort: opts.targetBasePort,
      endpoints: opts.targetEndpoints,
      vllmBin: opts.targetVllmBin ?? opts.vllmBin,
    };
  }
  return {
    model: opts.judgeModel,
    revision: opts.judgeRevision,
    groups: opts.judgeGpus,
    tp: opts.judgeTp,
    basePort: opts.judgeBasePort,
    endpoints: opts.judgeEndpoint ? [opts.judgeEndpoint] : undefined,
    vllmBin: opts.judgeVllmBin ?? opts.vllmBin,
  };
}

/** Starts (or attaches to) the role's servers for a stage; `mediaRoot`: the target's --allowed-local-media-path. */
export function startStageServers(role: ServerRole, c: StageContext, mediaRoot?: string): Promise<AvtimeServers> {
  return startServers({
    role,
    layout: c.plan.layout,
    ...roleServerOptions(role, c.plan.opts),
    mediaRoot,
    log: c.log,
    startTimeoutMs: c.hooks.startTimeoutMs,
    signal: c.cut,
  });
}

// The frame plans of one video's todo units, computed when the runner starts that video (from the
// meta.json on disk then), so the work plan never holds ~1 GB of frame lists for a full package.
import type { PackageLayout } from '../package/layout';
import { readVideoMetaUncached } from '../package/meta';
import type { VideoMeta } from '../package/schemas';
import { parseCondition } from '../rules/conditions';
import { planFrames, type SendPlan } from '../rules/plan';
import type { VideoWork } from './types';

export type VideoFramePlans =
  { kind: 'ok'; meta: VideoMeta; /** condition → what to send */ plans: Map<string, SendPlan> } | { kind: 'no_video' | 'bad_meta'; message: string };

/**
 * Reads the video's meta.json again and runs planFrames for every condition of its todo units.
 * A unit whose plan is no longer `send` (the meta changed since the plan was built) is reported as
 * bad_meta for the whole video rather than sending something the plan did not promise.
 */
export async function loadVideoFramePlans(layout: PackageLayout, video: VideoWork): Promise<VideoFramePlans> {
  const found = await readVideoMetaUncached(layout, video.hash);
  if (found.kind !== 'ok') return { kind: found.kind, message: found.message };
  const plans = new Map<string, SendPlan>();
  for (const unit of video.units) {
    if (plans.has(unit.condition)) continue;
    const cond = parseCondition(unit.condition);
    const fp = planFrames(cond, cond.kind === 'blind' ? null : found.meta);
    if (fp.status !== 'send') {
      return { kind: 'bad_meta', message: `${layout.metaFile(video.hash)} changed since the plan: ${unit.condition} is now ${fp.status}` };
    }
    plans.set(unit.condition, fp);
  }
  return { kind: 'ok', meta: found.meta, plans };
}

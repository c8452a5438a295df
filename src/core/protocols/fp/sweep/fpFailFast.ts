// The sweep's fail-fast monitor: the engine's rules with the run's thresholds, and the preparation rule in
// Frames × Pixels's words (a job is a video; its preparation, the frames' decode).
import { FailFastMonitor, type PrepWords } from '../../../runner/failFast';
import type { RunOptions } from './runOptions';

export const FP_PREP_WORDS: PrepWords = { jobs: 'videos', failed: 'failed to decode', noneOk: 'none decoded', kind: 'decode' };

export function fpFailFast(opts: Pick<RunOptions, 'failSameInARow' | 'failFirstRequests' | 'failFirstVideos'>): FailFastMonitor {
  return new FailFastMonitor({ sameInARow: opts.failSameInARow, firstRequests: opts.failFirstRequests, firstPrepared: opts.failFirstVideos }, FP_PREP_WORDS);
}

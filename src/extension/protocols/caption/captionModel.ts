// The videos roots the progress tree shows (runRootsModel.ts): the configured root (`fpsweep.caption.videosRoot`),
// the roots found in the workspace folders, and the roots started or opened in this window.
import type { CaptionProgressDetail } from '../../../core/protocols/caption/progressTypes';
import type { AnyProtocol, ProgressSnapshot } from '../../../core/protocols/types';
import { RunRootsModel } from '../../runRootsModel';
import { captionRootRow } from './captionTreeRows';

export type CaptionSnapshot = ProgressSnapshot<CaptionProgressDetail>;

export class CaptionModel extends RunRootsModel<CaptionProgressDetail> {
  constructor(engine: () => AnyProtocol | undefined, log: (line: string) => void, pollMs = 1500) {
    super(engine, log, captionRootRow, pollMs);
  }
}

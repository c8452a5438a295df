// The videos roots the progress tree shows (runRootsModel.ts): the configured root (`fpsweep.caption.videosRoot`),
// the roots found in the workspace folders, and the roots started or opened in this window.
import type { CaptionProgressDetail } from '../../../core/protocols/caption/progressTypes';
import type { RunRootsModel } from '../../runRootsModel';

export type CaptionModel = RunRootsModel<CaptionProgressDetail>;

// The verbs the run types bring, `fpsweep <verb> …`, each loaded only when asked for (so `fpsweep status` loads
// no sweep). A new run type with verbs of its own: one line here, pointing at its folder's verb module
// (a VerbModule, src/cli/verb.ts). Frames × Pixels' verbs predate run types and stay top-level (main.ts).
import type { VerbModule } from '../core/cli/verb';

export const RUN_TYPE_VERBS: Readonly<Record<string, () => VerbModule>> = {
  avtime: () => require('../core/protocols/avtime/cli/avtime') as VerbModule,
  'avtime caption': () => require('../core/protocols/caption/cli/caption') as VerbModule,
  'avtime caption-sample': () => require('../core/protocols/caption/cli/captionSample') as VerbModule,
  'avtime cut': () => require('../core/protocols/cut/cli/cut') as VerbModule,
  'avtime cut-sample': () => require('../core/protocols/cut/cli/cutSample') as VerbModule,
};

// The UI halves of the run types, beside PROTOCOLS (core/protocols/registry.ts): the extension builds its tree,
// commands, report sources, runbook steps and Stop from this list (compose.ts). Adding a run type's UI: one line
// here, its report contract in reportContracts.ts, its renderers in media/src/protocols/registry.ts.
import { avtimeUi } from './avtime';
import { captionUi } from './caption';
import { cutUi } from './cut';
import { fpUi } from './fp';
import type { ProtocolUi } from './types';

export const PROTOCOL_UIS: readonly ProtocolUi[] = [fpUi, avtimeUi, captionUi, cutUi];

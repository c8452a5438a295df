// The run types' webview renderers by report kind, beside PROTOCOL_UIS (src/extension/protocols/registry.ts).
// Adding a run type's report: one line here. `satisfies` fails the build when a kind of the report contracts
// has no renderer.
import type { ReportKind } from '../../../src/extension/reports/messages';
import { avtimeRenderers } from './avtime/avtime';
import { avtimeDataRenderers } from './avtime/data';
import { fpRenderers } from './fp/views';
import type { RendererOf } from './renderers';

export const RENDERERS = { ...fpRenderers, ...avtimeRenderers, ...avtimeDataRenderers } satisfies Record<ReportKind, RendererOf<never, Node>>;

// What a run type's webview front end gives the report page: a renderer per report kind. Pure (no DOM at load),
// so the composition is tested under plain mocha.
import type { CellFocus, ReportKind } from '../../../src/extension/reports/messages';

/** Lays out one report model (into a DOM Node: `N` is left open so plain-Node tests load this); `redraw` lays the
 * same model out again (a pick inside the view). */
export type RendererOf<M, N = unknown> = (report: M, focus: CellFocus | undefined, redraw: () => void) => N;

/** Renderers by report kind (each run type's model is its own: the panel's kind says which one arrived). */
export type Renderers = Readonly<Record<string, RendererOf<never>>>;

/** The renderer of `kind`, or a plain error: a kind no run type of this build renders. */
export function rendererFor(renderers: Renderers, kind: ReportKind | string): RendererOf<unknown> {
  const r = renderers[kind];
  if (!r) throw new Error(`no renderer for the ${kind} report in this build`);
  return r as RendererOf<unknown>;
}

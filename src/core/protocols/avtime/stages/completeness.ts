// Whether a stage's artifacts are complete in a run, read from the artifacts alone: a later verb refuses to
// start on an incomplete stage, and target inference refuses to restart a canonical run's started shards. The
// artifacts are read from the output root without following a link (a link planted at one is refused with its path,
// exit 2): a run never decides a stage is done, or skips it, on a file outside.
import type { AvtimeRunLayout } from './layout';
import type { StageName } from './options';
import type { TargetInput } from './inputSchemas';
import { checkCoverage, shardSummarySchema } from './infer';
import { parseBoundedJson } from '../../../io/boundedJson';
import { existsUnder, readFileUnder } from '../../../containment/rootFs';

/** null when every shard has its summary, no failure and exact coverage; else what is missing. */
export async function inferComplete(layout: AvtimeRunLayout, shards: TargetInput[][]): Promise<string | null> {
  for (let k = 0; k < shards.length; k++) {
    const text = await readFileUnder(layout.root, layout.shardSummary(k));
    const s = text === null ? null : shardSummarySchema.parse(parseBoundedJson(text));
    if (!s) return `shard${k} has no summary`;
    if (s.failed) return `shard${k} had ${s.failed} failed row(s)`;
    const cov = await checkCoverage(
      layout.rawPredictions(k),
      shards[k].map((x) => x.id),
    );
    if (cov) return `shard${k}: ${cov}`;
  }
  return null;
}

/** The judge's report says every query that needs the judge has its counted response. */
export async function judgeComplete(layout: AvtimeRunLayout): Promise<boolean> {
  const text = await readFileUnder(layout.root, layout.semanticReport);
  return text !== null && (parseBoundedJson(text) as { complete?: boolean }).complete === true;
}

/** null when `stage`'s artifacts are complete in the run; else the refusal for a verb that needs them. */
export async function stageIncomplete(stage: StageName, layout: AvtimeRunLayout, shards: TargetInput[][]): Promise<string | null> {
  if (stage === 'infer') {
    const problem = await inferComplete(layout, shards);
    return problem && `infer has not completed: ${problem}; run \`fpsweep avtime infer\` (or \`run --resume\`) first`;
  }
  if (stage === 'normalize') {
    return (await existsUnder(layout.root, layout.predictionReport))
      ? null
      : `normalization has not run in ${layout.root}: run \`fpsweep avtime normalize\` first`;
  }
  if (stage === 'judge') {
    return (await judgeComplete(layout)) ? null : `the judge has not completed in ${layout.root}: run \`fpsweep avtime judge\` first`;
  }
  return null; // inputs were read before; score is last
}

/** Why target inference may not (re)start in this root, or null: canonical shards never resume. `newRun`: ./stopAdvice.ts newRunWords. */
export async function inferRefusal(layout: AvtimeRunLayout, shards: TargetInput[][], canonical: boolean, newRun: string): Promise<string | null> {
  const done = await inferComplete(layout, shards);
  if (done === null) return null;
  const started = await Promise.all(shards.map((_, k) => existsUnder(layout.root, layout.rawPredictions(k))));
  if (!started.some(Boolean)) return null;
  if (canonical) {
    return (
      `target inference of this canonical run is incomplete (${done}): canonical shards never resume — ` +
      `start a new run (${newRun}), or start runs with --keep-going to allow --resume`
    );
  }
  // A non-canonical run's shards resume; that this is a resume at all is the non-empty-root rule's to decide.
  return null;
}

/**
 * A canonical run in this root whose target shards did not all finish (a summary missing, failed rows, or fewer
 * written than assigned), read from its artifacts alone: it never resumes, so a new run is the only way on.
 */
export async function canonicalInferUnfinished(layout: AvtimeRunLayout, start: { canonical: boolean; shards?: number } | null): Promise<boolean> {
  if (!start?.canonical) return false;
  for (let k = 0; k < (start.shards ?? 1); k++) {
    const text = await readFileUnder(layout.root, layout.shardSummary(k));
    const s = text === null ? null : shardSummarySchema.safeParse(parseBoundedJson(text));
    if (!s?.success || s.data.failed > 0 || s.data.written !== s.data.expected) return true;
  }
  return false;
}

// Stage 3's driver: normalize the shards' raw answers (./normalizeStage.ts), or, when the run has normalized
// already, the same outcomes recomputed from the raw files (pure) for the stages after it.
import { InputError } from '../../../../errors';
import type { NormalizeOutcome, Prediction } from '../../normalize';
import { assignShards } from '../infer';
import { normalizeAll, readRawPredictions, runNormalize } from '../normalizeStage';
import { stageIncomplete } from '../completeness';
import { existsUnder } from '../../../../containment/rootFs';
import type { StageContext } from './context';

export interface Normalized {
  outcomes: NormalizeOutcome[];
  /** The valid prediction per video_id. */
  predictions: Map<string, Prediction>;
}

export async function normalizeStage(c: StageContext): Promise<Normalized> {
  const { layout, opts } = c.plan;
  const { inputs, groups } = c.run;
  const st = c.status.stage('normalize');
  let outcomes: NormalizeOutcome[];
  // The run's own report, never through a link (refused with its path): a link would skip the stage on a file outside.
  if (await existsUnder(layout.root, layout.predictionReport)) {
    const { raw } = await readRawPredictions(layout, groups);
    outcomes = normalizeAll(inputs, raw);
    st.state = 'skipped';
  } else if (c.run.stages.includes('normalize')) {
    st.state = 'running';
    const res = await runNormalize({ layout, inputs, shards: groups, modelId: c.plan.targetId, modelPath: opts.targetModel, audioInVideo: opts.audioInVideo });
    outcomes = res.outcomes;
    st.state = 'done';
    st.done = outcomes.length;
    st.failed = outcomes.filter((o) => o.kind === 'failure').length;
    c.say(res.line);
  } else throw new InputError((await stageIncomplete('normalize', layout, assignShards(inputs, groups)))!);
  const predictions = new Map<string, Prediction>();
  for (const o of outcomes) if (o.kind === 'ok') predictions.set(o.prediction.video_id, o.prediction);
  return { outcomes, predictions };
}

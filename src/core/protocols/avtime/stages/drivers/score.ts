// Stage 5's driver: the six scores, traces and intervals (./scoreStage.ts), then run_config.json, which is
// written last: its presence means the run is scored. Returns the verb's last line.
import type { NormalizeOutcome } from '../../normalize';
import type { JudgeResponseLine } from '../judgeStage';
import { scoreAll, scoreLine, writeScores } from '../scoreStage';
import { buildRunConfig } from '../runConfig';
import { readServerRecords } from '../servers';
import { sha256Text, writeFileAtomic } from '../files';
import { existsUnder } from '../../../../containment/rootFs';
import type { StageContext } from './context';

export async function scoreStage(c: StageContext, outcomes: readonly NormalizeOutcome[], counted: ReadonlyMap<string, JudgeResponseLine>): Promise<string> {
  const { layout, opts, bench, canonical } = c.plan;
  const st = c.status.stage('score');
  // Never through a link (refused with its path): a link planted at run_config.json would end the run unscored.
  if (await existsUnder(layout.root, layout.runConfig)) {
    st.state = 'skipped';
    return `already scored: ${layout.summary}`;
  }
  st.state = 'running';
  const { traces, summary, ci } = scoreAll(c.run.queries, outcomes, counted);
  await writeScores(layout, traces, summary, ci);
  const config = await buildRunConfig({
    layout,
    options: opts,
    canonical,
    startedAt: c.plan.startedAt,
    inputFiles: {
      test: bench.test,
      inventory: bench.inventory,
      manifest: bench.manifest,
      target_inputs: c.plan.targetInputsPath,
      target_prompt: c.run.promptFile,
    },
    targetModelId: c.plan.targetId,
    judgeModelId: c.plan.judgeId,
    servers: await readServerRecords(layout),
    targetPromptSha256: sha256Text(c.run.prompt),
    templates: c.run.templates,
    shards: c.run.groups,
  });
  await writeFileAtomic(layout.root, layout.runConfig, JSON.stringify(config, null, 1) + '\n');
  st.state = 'done';
  st.done = traces.length;
  const line = `${canonical ? '' : 'NON-CANONICAL '}${scoreLine(summary)} → ${layout.evalDir}`;
  c.say(line);
  return line;
}

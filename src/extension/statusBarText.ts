// What the status bar items say (no vscode: tested under plain mocha): the sweep's progress and ETA, and the
// latest AVTime run's current stage with its counts.
import type { AvtimeRunView, AvtimeStageView } from '../core/protocols/avtime/progress';
import { etaText } from './protocols/fp/fpTreeRows';
import { percent, type ProgressView } from '../core/protocols/fp/progress';

export interface StatusText {
  text: string;
  tooltip: string;
  /** The text in words, without the icons. */
  aria: string;
}

const words = (text: string) => text.replace(/\$\([^)]*\)\s*/g, '');

export function sweepStatusText(v: ProgressView): StatusText {
  const pct = percent(v.finished, v.total);
  const eta = v.live ? etaText(v.etaSeconds) : '';
  const icon = v.live ? '$(sync~spin)' : v.failed ? '$(warning)' : '$(pulse)';
  const what = v.live ? (v.mode ?? 'run') : 'sweep';
  const text = `${icon} fpsweep ${what} ${pct}%${eta ? ` · ${eta}` : ''}`;
  const tooltip =
    `${v.finished} of ${v.total} rows finished${v.failed ? `, ${v.failed} failed` : ''}` +
    `${v.live ? ` — worker ${v.state}` : ' — no worker running (counted from the artifacts)'}` +
    `${v.summary ? `\n${v.summary}` : ''}\nClick to show the progress tree.`;
  return { text, tooltip, aria: words(text) };
}

/** The stage a run is at: the running one, else the first that failed, else the last begun, else the first. */
export function currentStage(v: AvtimeRunView): AvtimeStageView | undefined {
  return (
    v.stages.find((s) => s.state === 'running') ??
    v.stages.find((s) => s.state === 'failed') ??
    [...v.stages].reverse().find((s) => s.state !== 'todo') ??
    v.stages[0]
  );
}

export function avtimeStatusText(v: AvtimeRunView): StatusText {
  const s = currentStage(v);
  const icon = v.live ? '$(sync~spin)' : v.state === 'failed' ? '$(warning)' : v.state === 'done' ? '$(pass)' : '$(pulse)';
  const counts = s ? ` · ${s.name} ${s.done}/${s.done + s.todo + s.failed}${s.failed ? ` · ${s.failed} failed` : ''}` : '';
  const text = `${icon} AVTime ${v.runId}${v.live ? '' : ` ${v.state}`}${counts}`;
  const stages = v.stages.map((x) => `${x.name}: ${x.state}, ${x.done} done, ${x.todo} todo, ${x.failed} failed`).join('\n');
  const tooltip =
    `AVTime run ${v.runId} (${v.outputRoot}): ${v.state}${v.live ? ' — worker running' : ''}\n${stages}` +
    `${v.summary ? `\n${v.summary}` : ''}\nClick to show the progress tree.`;
  return { text, tooltip, aria: words(text) };
}

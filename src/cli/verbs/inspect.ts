// fpsweep inspect --package DIR --benchmark B --item ID [--conditions c1,c2] [--json] [--no-rebuild]: one item across
// its conditions; without --item, the benchmark's items under --condition C.
import { UsageError } from '../../core/errors';
import { inspectItem, listItems, type ConditionInspection, type ItemInspection, type ItemList } from '../../core/protocols/fp/inspect';
import { terminalSafe, terminalSafeJson } from '../../core/security/terminalText';
import { checkBenchmarks, fpPackageRoot, listFlag, parseVerbArgs, requirePackage, type OptionSpec } from '../../core/cli/options';

export const summary = 'one item across its conditions: frames sent, prompt, reply, parsed letter, tokens, latency, server';

const HELP = `usage: fpsweep inspect --package DIR --benchmark B --item ID [--conditions c1,c2] [--json] [--no-rebuild]
       fpsweep inspect --package DIR --benchmark B --condition C [--json]

One item of benchmark B across every condition it has a row, a raw record or a failure for (--conditions
first, in that order): the frames sent (stored index, time, size sent, the JPEG's file), the prompt text, the raw
reply, the parsed letter, right or wrong, prompt/answer tokens, latency and the server. Frames are the run's JPEGs
(.fpsweep/frames) where they are still there, else made again by the frame pipeline into .fpsweep/inspect-frames
(the same bytes; --no-rebuild leaves them missing).
Without --item: the benchmark's items with their answer under condition C.
--json      print the model as JSON (what the extension's item inspector shows)

Rerun: reads only: frames made again into .fpsweep/inspect-frames are reused, nothing else written.`;

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  benchmark: { type: 'string' },
  item: { type: 'string' },
  condition: { type: 'string' },
  conditions: { type: 'string', value: { kind: 'list' } },
  json: { type: 'boolean' },
  'no-rebuild': { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = requirePackage(v, HELP, fpPackageRoot);
  if (typeof v.benchmark !== 'string' || !v.benchmark) throw new UsageError(`--benchmark B is required\n\n${HELP}`);
  checkBenchmarks('--benchmark', packageDir, [v.benchmark]);
  if (typeof v.item !== 'string' || !v.item) {
    if (typeof v.condition !== 'string' || !v.condition) throw new UsageError(`--item ID (or --condition C for the list) is required\n\n${HELP}`);
    const list = await listItems(packageDir, v.benchmark, v.condition);
    for (const p of list.problems.slice(0, 20)) process.stderr.write(`${terminalSafe(p)}\n`);
    const { problems: _problems, ...model } = list;
    process.stdout.write(v.json ? terminalSafeJson(JSON.stringify(model)) + '\n' : terminalSafe(listText(model)));
    return 0;
  }
  const model = await inspectItem(packageDir, {
    benchmark: v.benchmark,
    itemId: v.item,
    conditions: listFlag(v, 'conditions'),
    rebuild: v['no-rebuild'] !== true,
  });
  // Text from the package's files is shown with its control characters escaped (issue 42: no OSC 52, no clears).
  process.stdout.write(v.json ? terminalSafeJson(JSON.stringify(model)) + '\n' : terminalSafe(inspectionText(model)));
  return 0;
}

const orDash = (x: unknown) => (x === null || x === undefined || x === '' ? '—' : String(x));
/** Seconds for people: to the millisecond (a raw record holds 0.053870816000002375), as the inspector panel shows. */
const secondsText = (s: number | null) => (s === null ? '—' : s.toFixed(3));

function answerText(c: ConditionInspection): string {
  if (c.state === 'none' || c.state === 'NA' || c.state === 'failed') return c.state;
  const mark = c.correct === null ? '?' : c.correct ? 'right' : 'wrong';
  return `${c.state} ${orDash(c.pred)} (${mark})${c.reusedFrom ? ` reused from ${c.reusedFrom}` : ''}`;
}

function videoText(m: ItemInspection): string {
  return m.video ? ` (${m.video.hash}, ${m.video.width}x${m.video.height}, ${m.video.nFrames} frames)` : '';
}

export function inspectionText(m: ItemInspection): string {
  const lines = [
    `${m.benchmark} · ${m.item.item_id} · video ${m.item.video_id}${videoText(m)} · answer ${m.item.answer}`,
    ...(m.videoProblem ? [`video: ${m.videoProblem}`] : []),
    '',
    m.promptText,
    '',
  ];
  for (const c of m.conditions) {
    const bySource = (s: string) => c.frames.filter((f) => f.source === s).length;
    const frames = c.frames.length
      ? `${c.frames.length} frame(s) ${c.width}x${c.height} (run ${bySource('run')}, rebuilt ${bySource('rebuilt')}, missing ${bySource('missing')})` +
        ` indices ${c.frames.map((f) => f.index).join(',')}`
      : 'no frames';
    lines.push(`${c.condition}: ${answerText(c)} · ${frames}`);
    lines.push(
      `  tokens ${orDash(c.promptTokens)} / ${orDash(c.completionTokens)} · latency ${secondsText(c.latencyS)} s` +
        ` · server ${orDash(c.endpoint)} · ${orDash(c.ts)}`,
    );
    if (c.response !== null) lines.push(`  reply: ${JSON.stringify(c.response)}`);
    for (const f of c.failures) lines.push(`  failure ${f.kind} (${f.attempts} attempt(s), ${orDash(f.endpoint)}): ${f.message}`);
    for (const p of c.problems) lines.push(`  problem: ${p}`);
  }
  lines.push('', `${m.conditions.length} condition(s); ${m.rebuiltFrames} frame(s) made again`);
  return lines.join('\n') + '\n';
}

function listText(l: ItemList): string {
  const rows = l.items.map(
    (i) => `${i.item_id}\t${i.state}\t${orDash(i.pred)}\t${i.correct === null ? '—' : i.correct ? 'right' : 'wrong'}\t${i.question.slice(0, 80)}`,
  );
  return [`${l.benchmark} × ${l.condition}: ${l.items.length} item(s)`, ...rows].join('\n') + '\n';
}

// A small complete bench root for the run tests (hand-made, no ffmpeg): 3 videos, queries covering all six
// scores (with a t2e query nobody is active at, and queries on a video whose answer has no event line), and
// stub servers: a target answering fixed LongVALE text per video, a judge answering by request kind.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixtureRows, tmpDir, writeBench } from './fixtures';
import { startStub, type Stub, type StubReply } from './httpStub';
import { waitFor } from '../../../../helpers/waitFor';

export const TARGET_ANSWERS: Record<string, string> = {
  vid_000: 'Here are the events:\nFrom 00 to 10, a man speaks to the camera\nFrom 10 to 20, loud music plays\nFrom 50 to 60, a dog barks twice\n',
  vid_001: 'I cannot describe this video.',
  // an out-of-order line, a near-duplicate pair kept apart (ratio 46/47 ≤ 0.98), and a repeat that ends inside the
  // car event (upstream's merge takes its end: the car ends at 04, not 05)
  vid_002:
    'From 30 to 40, a woman sings a song\nFrom 00 to 05, a car drives by\nFrom 05 to 15, the crowd cheers loudly\n' +
    'From 15 to 25, the crowd cheers loudly!\nFrom 04 to 04, a car drives by\n',
};

/** A bench root at `root` (default a fresh temp folder). */
export function makeBench(root = tmpDir('bench')): { root: string } {
  writeBench(root, fixtureRows(root, 3));
  const q: Record<string, unknown>[] = [];
  for (const axis of ['A', 'V'] as const) {
    q.push({ query_id: `t2e-${axis}-0`, video_id: 'vid_000', axis, direction: 't2e', time_ms: 3000, reference_captions: ['a man talks'] });
    q.push({ query_id: `t2e-${axis}-1`, video_id: 'vid_000', axis, direction: 't2e', time_ms: 40000, reference_captions: ['silence'] });
    q.push({ query_id: `t2e-${axis}-2`, video_id: 'vid_001', axis, direction: 't2e', time_ms: 1000, reference_captions: ['x'] });
    q.push({ query_id: `e2t-${axis}-0`, video_id: 'vid_000', axis, direction: 'e2t', reference_caption: 'music', reference_interval_ms: [6000, 13000] });
    q.push({ query_id: `e2t-${axis}-1`, video_id: 'vid_002', axis, direction: 'e2t', reference_caption: 'cheering', reference_interval_ms: [3000, 20000] });
    q.push({
      query_id: `e2e-${axis}-0`,
      video_id: 'vid_000',
      axis,
      direction: 'e2e',
      events: [
        { caption: 'man speaks', interval_ms: [0, 6000] },
        { caption: 'dog', interval_ms: [30000, 36000] },
      ],
      relation: 'before',
    });
    q.push({
      query_id: `e2e-${axis}-1`,
      video_id: 'vid_002',
      axis,
      direction: 'e2e',
      events: [
        { caption: 'song', interval_ms: [20000, 26000] },
        { caption: 'car', interval_ms: [0, 3000] },
      ],
      relation: axis === 'A' ? 'after' : 'overlap',
    });
  }
  fs.writeFileSync(path.join(root, 'benchmark_reference_manifest.jsonl'), q.map((x) => JSON.stringify(x) + '\n').join(''));
  return { root };
}

export const videoOf = (body: Record<string, any>) => path.basename(new URL(body.messages[0].content[0].video_url.url).pathname, '.mp4');

export async function targetStub(): Promise<Stub> {
  return startStub((b) => ({ text: TARGET_ANSWERS[videoOf(b)] ?? '' }), ['target-model']);
}

/** Numbered prediction lines shown to the judge ("0. caption"). */
function shown(body: Record<string, any>): string[] {
  return (body.messages[0].content as string).split('\n').filter((l) => /^\d+\. /.test(l));
}

export type JudgeFault = (body: Record<string, any>) => StubReply | null;

/** A judge by request kind: t2e score 3; selector the captions sharing a word with the reference (or [0]). */
export async function judgeStub(fault: JudgeFault = () => null): Promise<Stub> {
  return startStub(
    (b) => {
      const f = fault(b);
      if (f) return f;
      const kind = String(b.response_format.json_schema.name).replace(/^avtime_/, '');
      const n = shown(b).length;
      if (kind === 't2e_scalar') return { text: JSON.stringify({ score: 3 }) };
      if (kind === 'semantic_selector') return { text: JSON.stringify({ indices: n > 1 ? [1, 2].filter((i) => i < n) : [0] }) };
      return { text: JSON.stringify({ indices_a: [0], indices_b: n > 2 ? [2] : [n - 1] }) };
    },
    ['judge-model'],
  );
}

/**
 * `fpsweep avtime run --detach` into `out` (run id r1) on a target that holds every answer, so the run
 * cannot end on its own; resolves once the worker has started and all three inputs are held.
 */
export async function startHeldDetachedRun(
  cli: (args: string[]) => Promise<{ code: number; out: string; err: string }>,
  stubs: Stub[],
  out: string,
): Promise<{ started: { code: number; out: string; err: string }; hold: Stub }> {
  const { root } = makeBench();
  // The pre-flight's requests (return_token_ids) are answered; the shards' are held.
  const hold = await startStub((b) => (b.return_token_ids ? { text: '' } : 'hang'));
  const j = await judgeStub();
  stubs.push(hold, j);
  const args = ['run', '--detach', '--bench-root', root, '--output-root', out, '--run-id', 'r1'];
  const started = await cli(['avtime', ...args, '--target-endpoints', `${hold.url},${hold.url}`, '--judge-endpoint', j.url]);
  const heldInputs = () => hold.bodies.filter((b) => !b.return_token_ids).length;
  if (started.code === 0)
    await waitFor(
      () => heldInputs() >= 3,
      30_000,
      () => `the 3 inputs held by the target (${heldInputs()} so far)`,
    );
  return { started, hold };
}

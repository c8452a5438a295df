// The GPU frames helper's serve loop (resources/python/fp_gpu_frames.py serve(), issue 45): with a pool of job threads
// (`--serve --jobs N`: one process, one CUDA context, N videos at once) jobs run at the same time and each answer
// carries its job's id, so the node side pairs answers that come in any order; a failing job answers with its id too.
// The job itself is a stand-in here (no CUDA on this machine): the loop is what is tested.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { defaultGpuHelperPath } from '../../../../../src/core/protocols/fp/frames/gpu/probe';

function serve(jobs: number, lines: object[]): { answers: Array<Record<string, unknown>>; overlapped: boolean } {
  const script = [
    'import io, json, sys, threading',
    'from concurrent.futures import ThreadPoolExecutor',
    `sys.path.insert(0, ${JSON.stringify(path.dirname(defaultGpuHelperPath()))})`,
    'import fp_gpu_frames as h',
    'jobs = int(sys.argv[1])',
    // Every job but "bad" waits until the first two are in flight together (a barrier of 2): a loop that ran one job
    // at a time would time out there and answer an error instead.
    'both = threading.Barrier(2)',
    'seen = {"overlapped": False}',
    'def run(job):',
    '    if job["video"] == "bad":',
    '        raise ValueError("no such video")',
    '    if job["id"] <= 2:',
    '        both.wait(timeout=5 if jobs > 1 else 0.2)',
    '        seen["overlapped"] = True',
    '    return {"ok": True, "frames": 1, "jpegs": 1, "seconds": 0.0, "cpu_s": 0.0, "video": job["video"]}',
    'pool = ThreadPoolExecutor(jobs) if jobs > 1 else None',
    'out = io.StringIO()',
    'h.serve(io.StringIO(sys.stdin.read()), out, run, {"ready": True}, pool)',
    'print(json.dumps({"answers": [json.loads(l) for l in out.getvalue().splitlines()], "overlapped": seen["overlapped"]}))',
  ].join('\n');
  const input = lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
  return JSON.parse(execFileSync('python3', ['-c', script, String(jobs)], { input, encoding: 'utf8', timeout: 30_000 }));
}

describe('fp/frames/gpu: the helper serve loop (--jobs N threads)', () => {
  const lines = [
    { id: 1, video: 'a', width: 2, height: 2 },
    { id: 2, video: 'b', width: 2, height: 2 },
    { id: 3, video: 'bad', width: 2, height: 2 },
  ];

  it('with 2 job threads the first two jobs run at once; every answer carries its id, a failed job too', () => {
    const r = serve(2, lines);
    assert.equal(r.overlapped, true);
    const byId = new Map(r.answers.map((a) => [a.id, a]));
    assert.deepEqual([...byId.keys()].sort(), [1, 2, 3]);
    assert.equal(byId.get(1)!.video, 'a');
    assert.equal(byId.get(2)!.video, 'b');
    assert.equal(byId.get(2)!.ok, true);
    assert.equal(byId.get(3)!.ok, false);
    assert.match(String(byId.get(3)!.error), /ValueError: no such video/);
  });

  it('one job at a time (no --jobs): answers in order with their ids, and the jobs never overlap', () => {
    const r = serve(1, lines);
    assert.deepEqual(
      r.answers.map((a) => a.id),
      [1, 2, 3],
    );
    assert.equal(r.overlapped, false);
    assert.match(String(r.answers[0].error), /BrokenBarrierError/, 'alone at the barrier: nothing ran beside it');
  });
});

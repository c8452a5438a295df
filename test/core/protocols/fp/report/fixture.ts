// A small synthetic package with every artifact the report reads: items + videos (for the dry
// run), a results CSV with origin rows and rows of our run, raw records, timing, failures,
// server logs, launch lines and a run identity.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../returns/tmpDirs';

export const RUN_START = '2026-12-01T10:00:00.000Z';
const T = (s: number) => new Date(Date.parse(RUN_START) + s * 1000).toISOString();
export const LAST_WRITE_S = 5400;

export const LAUNCH_LINES = [
  'CUDA_VISIBLE_DEVICES=0 VLLM_API_KEY=<redacted> vllm serve Qwen/Qwen3-VL-8B-Instruct --revision 0c351dd01ed87e9c1b53cbc748cba10e6187ff3b ' +
    '--max-model-len 65536 --limit-mm-per-prompt \'{"image": 1024}\' --max-num-seqs 32 --gpu-memory-utilization 0.85 --port 8011',
  'CUDA_VISIBLE_DEVICES=1 VLLM_API_KEY=<redacted> vllm serve Qwen/Qwen3-VL-8B-Instruct --revision 0c351dd01ed87e9c1b53cbc748cba10e6187ff3b ' +
    '--max-model-len 65536 --limit-mm-per-prompt \'{"image": 1024}\' --max-num-seqs 32 --gpu-memory-utilization 0.85 --port 8012',
];

/** p1_timing lines: sums chosen so that Python's half-even rounding matters (0.125 → 0.12). */
export const TIMING = [
  { benchmark: 'MVBench', condition: 'v_fps1_s224', infer: 8, infer_s: 1.0, decode_s: 0.3, prompt_tokens: 4004, na: 0, reuse: 0, failed: 0, wall_s: 10 },
  { benchmark: 'LVBench', condition: 'v_fps1_s224', infer: 2, infer_s: 30.123, decode_s: 9.1, prompt_tokens: 113000, na: 0, reuse: 0, failed: 0, wall_s: 40 },
  { benchmark: 'LVBench', condition: 'v_fps0.25_s224', infer: 3, infer_s: 7.5, decode_s: 1.125, prompt_tokens: 150001, na: 0, reuse: 0, failed: 0, wall_s: 20 },
  { benchmark: 'MVBench', condition: 'v_8_s224', infer: 8, infer_s: 1.0, decode_s: 0.5, prompt_tokens: 20, na: 0, reuse: 0, failed: 0, wall_s: 5 },
  { benchmark: 'MVBench', condition: 'v_blind', infer: 0, infer_s: 0, decode_s: 0, prompt_tokens: 0, na: 0, reuse: 0, failed: 0, wall_s: 0 },
  {
    benchmark: 'LVBench',
    condition: 'v_fps2_s224',
    infer: 1,
    infer_s: 2.675,
    decode_s: 0.005,
    prompt_tokens: 57000,
    na: 0,
    reuse: 0,
    failed: 120,
    wall_s: 300,
  },
];

function rawRecord(benchmark: string, item_id: string, condition: string, ts: string, meta: Record<string, unknown>) {
  return {
    benchmark,
    item_id,
    condition,
    status: 'ok',
    response: 'A',
    pred: 'A',
    answer: 'A',
    correct: 1,
    usage: { prompt_tokens: 1000, completion_tokens: 1 },
    latency_s: 1.5,
    endpoint: 'http://127.0.0.1:8011',
    ts,
    meta: {
      n_frames_used: null,
      frame_indices: null,
      timestamps: null,
      short_side: 224,
      width: 398,
      height: 224,
      tokens_per_frame: 97,
      capped: false,
      capped_ctx: null,
      n_grid: null,
      n_max: null,
      reused_from: null,
      ...meta,
    },
  };
}

function span(n: number, last: number): number[] {
  return Array.from({ length: n }, (_, i) => (n === 1 ? 0 : (i * last) / (n - 1)));
}

export interface ReportFixtureOptions {
  /** Add a record that breaks capped_ctx == (n_grid > n_max) (and the long-video rule). */
  withViolation?: boolean;
}

export async function makeReportPackage(opts: ReportFixtureOptions = {}): Promise<string> {
  const dir = await tempDir('fp-report-');
  const w = async (rel: string, text: string) => {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  };
  const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

  // Items and videos: MVBench (3 items, one 16:9 video of 40 frames), LVBench (2 items, a 4000 s video).
  const item = (benchmark: string, id: string, video: string) => ({
    item_id: id,
    benchmark,
    video_id: video,
    question: 'Q?',
    options: ['a', 'b', 'c'],
    answer: 'A',
  });
  await w('items/samples/MVBench.jsonl', jsonl([item('MVBench', 'mv-1', 'vm'), item('MVBench', 'mv-2', 'vm'), item('MVBench', 'mv-3', 'vm')]));
  await w('items/samples/LVBench.jsonl', jsonl([item('LVBench', 'lv-1', 'vl'), item('LVBench', 'lv-2', 'vl')]));
  await w(
    'manifest/manifest_subset.jsonl',
    jsonl([
      { benchmark: 'MVBench', video_id: 'vm', hash: 'hm' },
      { benchmark: 'LVBench', video_id: 'vl', hash: 'hl' },
    ]),
  );
  await w('data/store/normalized/hm/video.mp4', '');
  await w(
    'data/store/normalized/hm/meta.json',
    JSON.stringify({ hash: 'hm', width: 1280, height: 720, duration_s: 19.5, n_frames: 40, timestamps: span(40, 19.5), too_short: false }),
  );
  await w('data/store/normalized/hl/video.mp4', '');
  await w(
    'data/store/normalized/hl/meta.json',
    JSON.stringify({ hash: 'hl', width: 854, height: 480, duration_s: 4000, n_frames: 1024, timestamps: span(1024, 4000), too_short: false }),
  );

  // CSV: two origin rows (before the run) and our rows.
  const header = 'benchmark,item_id,condition,status,pred,answer,correct,n_frames,prompt_tokens,latency_s,ts';
  const ours: Array<[string, string, string, string]> = [
    ['MVBench', 'mv-1', 'v_fps1_s224', 'ok'],
    ['MVBench', 'mv-2', 'v_fps1_s224', 'ok'],
    ['LVBench', 'lv-1', 'v_fps1_s224', 'ok'],
    ['LVBench', 'lv-1', 'v_fps0.25_s224', 'ok'],
  ];
  if (opts.withViolation) ours.push(['LVBench', 'lv-2', 'v_fps1_s224', 'ok']);
  const csvRows = [
    'MVBench,mv-1,v_32,ok,A,A,1,32,2000,1.2,2025-06-01T00:00:00Z',
    'LVBench,lv-1,v_32,ok,B,A,0,32,2000,1.2,2025-06-01T00:00:00Z',
    ...ours.map(([b, i, c, s], k) => `${b},${i},${c},${s},A,A,1,10,1000,1.5,${T(100 + k)}`),
  ];
  await w('results/conditions_results.csv', [header, ...csvRows].join('\n') + '\n');

  // Raw records. Origin v_32 records have old ts; ours are inside the run.
  await w(
    'results/p1_raw/v_32/MVBench__DIAG_V.jsonl',
    jsonl([rawRecord('MVBench', 'mv-1', 'v_32', '2025-06-01T00:00:00Z', { n_frames_used: 32, capped: false })]),
  );
  await w(
    'results/p1_raw/v_32/LVBench__DIAG_V.jsonl',
    jsonl([rawRecord('LVBench', 'lv-1', 'v_32', '2025-06-01T00:00:00Z', { n_frames_used: 32, capped: false, width: 398, height: 224 })]),
  );
  await w(
    'results/p1_raw/v_fps1_s224/MVBench__DIAG_V.jsonl',
    jsonl([
      rawRecord('MVBench', 'mv-1', 'v_fps1_s224', T(100), { n_frames_used: 20, timestamps: span(20, 19.5), capped_ctx: false, n_grid: 20, n_max: 582 }),
      rawRecord('MVBench', 'mv-2', 'v_fps1_s224', T(101), { n_frames_used: 20, timestamps: span(20, 19.5), capped_ctx: false, n_grid: 20, n_max: 582 }),
    ]),
  );
  const lv = [
    rawRecord('LVBench', 'lv-1', 'v_fps1_s224', T(102), {
      n_frames_used: 582,
      timestamps: span(582, 3990),
      capped_ctx: true,
      n_grid: 1024,
      n_max: 582,
      width: 398,
      height: 224,
    }),
  ];
  if (opts.withViolation) {
    lv.push(
      rawRecord('LVBench', 'lv-2', 'v_fps1_s224', T(LAST_WRITE_S), {
        n_frames_used: 582,
        timestamps: span(582, 3990),
        capped_ctx: false,
        n_grid: 1024,
        n_max: 582,
        width: 398,
        height: 224,
      }),
    );
  }
  await w('results/p1_raw/v_fps1_s224/LVBench__DIAG_V.jsonl', jsonl(lv));
  await w(
    'results/p1_raw/v_fps0.25_s224/LVBench__DIAG_V.jsonl',
    jsonl([
      rawRecord('LVBench', 'lv-1', 'v_fps0.25_s224', T(103), {
        n_frames_used: 500,
        timestamps: span(500, 1996),
        capped_ctx: false,
        n_grid: 500,
        n_max: 582,
        width: 398,
        height: 224,
      }),
    ]),
  );

  await w('data/logs/p1_timing.jsonl', jsonl(TIMING));
  const failures = [
    ...Array.from({ length: 120 }, (_, i) => ({
      benchmark: 'LVBench',
      item_id: `lv-x${i}`,
      condition: 'v_fps2_s224',
      kind: 'server_down',
      message: 'connection refused',
      endpoint: 'http://127.0.0.1:8011',
      attempts: 3,
      ts: T(200 + i),
    })),
    {
      benchmark: 'MVBench',
      item_id: 'mv-9',
      condition: 'v_32_s168',
      kind: 'no_video',
      message: 'data/store/normalized/zz is missing',
      endpoint: null,
      attempts: 0,
      ts: T(150),
    },
    {
      benchmark: 'MVBench',
      item_id: 'mv-9',
      condition: 'v_8_s224',
      kind: 'no_video',
      message: 'data/store/normalized/zz is missing',
      endpoint: null,
      attempts: 0,
      ts: opts.withViolation ? T(151) : T(LAST_WRITE_S),
    },
  ];
  await w('data/logs/failures.jsonl', jsonl(failures));
  await w(
    'logs/vllm_gpu0.log',
    'INFO 12-01 10:00:00 api_server.py: Started server process\nINFO loading weights\n' +
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 179.00 GiB\n' +
      'INFO 12-01 10:30:00 api_server.py: Started server process\n',
  );
  await w('logs/vllm_gpu1.log', 'INFO 12-01 10:00:00 api_server.py: Started server process\n');
  await w(
    'logs/launch_params.txt',
    `# ${T(0)} gpu0 start\n${LAUNCH_LINES[0]}\n# ${T(0)} gpu1 start\n${LAUNCH_LINES[1]}\n# ${T(1800)} gpu0 restart (exit 137)\n${LAUNCH_LINES[0]}\n`,
  );
  await w(
    'logs/run_identity.jsonl',
    jsonl([
      {
        run_id: 'r1',
        started_at: RUN_START,
        git_commit: null,
        fpsweep_version: null,
        node_version: 'v20',
        hostname: 'h',
        pid: 1,
        argv: [],
        options: {},
        endpoints: ['http://127.0.0.1:8011', 'http://127.0.0.1:8012'],
      },
    ]),
  );
  return dir;
}

/** The seed's §4 script, verbatim, run from the package root. */
export const SEED_TIMING_SCRIPT = `import json, collections
t = collections.defaultdict(lambda: [0, 0.0, 0.0, 0])
for l in open("data/logs/p1_timing.jsonl"):
    r = json.loads(l); k = r["condition"]
    t[k][0] += r["infer"]; t[k][1] += r["infer_s"]; t[k][2] += r["decode_s"]; t[k][3] += r["prompt_tokens"]
for k, (n, s, d, tok) in sorted(t.items()):
    print(f"{k:16s} infer={n:5d}  infer_s/item={s/max(n,1):6.2f}  decode_s/item={d/max(n,1):6.2f}  prompt_tok/item={tok/max(n,1):8.0f}")
`;

// Issue 33, point 8 (the fuzz half): every input parser through the verb a user runs, fed texts made from a valid
// file by fast-check (fields replaced by any JSON value, paths that climb out, nesting 100,000 deep, cut short,
// bytes that are not UTF-8, CSV cells with quotes and newlines). Whatever comes in: exit 0 (or the verb's own
// documented 1), or exit 2 naming the file; never a stack trace, never a write outside the run's folders. Bounded
// in time: each parser gets a few runs and stops at its time limit (fast-check's interruptAfterTimeLimit).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../protocols/fp/sample/fixture';
import { runCli, type Captured } from '../../helpers/captureOutput';

const RUNS = 15;
const TIME_LIMIT_MS = 9_000;
const STACK = /\n\s+at \S+ \(|RangeError|TypeError|ReferenceError/;

/** The folder nothing may be written into: a sibling of every input, named in the fuzzed paths. */
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-outside-'));
fs.writeFileSync(path.join(outside, 'canary'), 'untouched\n');

/** Values a hostile file puts where a string, a number or a path belongs. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('../../../' + path.basename(outside) + '/pwn', path.join(outside, 'pwn'), '/etc/passwd', '', 'NaN', '\u0000', '<script>x</script>'),
  fc.constant({ __proto__: { polluted: true } }),
);

/** A JSON document derived from `valid`: one field (at any depth) replaced by a hostile value, or a key added. */
function mutatedJson(valid: unknown): fc.Arbitrary<string> {
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, at: (string | number)[]) => {
    paths.push(at);
    if (Array.isArray(v)) v.slice(0, 4).forEach((x, i) => walk(x, [...at, i]));
    else if (v && typeof v === 'object') Object.entries(v).forEach(([k, x]) => walk(x, [...at, k]));
  };
  walk(valid, []);
  return fc.tuple(fc.constantFrom(...paths), hostileValue).map(([at, value]) => {
    const copy = JSON.parse(JSON.stringify(valid)) as unknown;
    if (at.length === 0) return JSON.stringify(value);
    let parent = copy as Record<string | number, unknown>;
    for (const k of at.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
    parent[at[at.length - 1]] = value;
    return JSON.stringify(copy);
  });
}

/** Any text a file can hold, from one valid text: mutated, cut short, deep, not UTF-8, or random. */
function hostileText(validText: string, validJson?: unknown): fc.Arbitrary<Buffer> {
  const texts: fc.Arbitrary<string>[] = [
    fc.nat({ max: validText.length }).map((n) => validText.slice(0, n)),
    fc.constant(validText.replace(/\}\s*$/, `,"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)),
    fc.string({ maxLength: 200 }),
  ];
  if (validJson !== undefined) texts.push(mutatedJson(validJson), mutatedJson(validJson));
  return fc.oneof(
    ...texts.map((t) => t.map((s) => Buffer.from(s))),
    fc.constant(Buffer.concat([Buffer.from(validText.slice(0, 20)), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from(validText.slice(20))])),
  );
}

interface Target {
  name: string;
  /** The file the fuzzed text goes into, and the verb run on it. */
  file: string;
  run: () => Promise<Captured>;
  /** Exit codes the verb documents besides 0 and 2 (e.g. caption's 1 for a failed video). */
  alsoAllowed?: number[];
}

function assertSafe(t: Target, r: Captured, input: Buffer): void {
  const said = `${t.name} on ${JSON.stringify(input.subarray(0, 300).toString('utf8'))}: exit ${r.code}\n${r.err.slice(-1500)}`;
  assert.doesNotMatch(r.err + r.out, STACK, `a stack trace: ${said}`);
  assert.ok([0, 2, ...(t.alsoAllowed ?? [])].includes(r.code), `an unexpected exit: ${said}`);
  assert.deepEqual(fs.readdirSync(outside), ['canary'], `a write outside: ${said}`);
  assert.equal(fs.readFileSync(path.join(outside, 'canary'), 'utf8'), 'untouched\n');
}

async function fuzz(t: Target, text: fc.Arbitrary<Buffer>, seed?: number): Promise<void> {
  const original = fs.readFileSync(t.file);
  try {
    await fc.assert(
      fc.asyncProperty(text, async (input) => {
        fs.writeFileSync(t.file, input);
        assertSafe(t, await t.run(), input);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, seed },
    );
  } finally {
    fs.writeFileSync(t.file, original);
  }
}

const row = (id: string) => ({
  id,
  videos: [`v/${id}.mp4`],
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: '<video>p' },
    { role: 'assistant', content: 'From 00 to 10, one\nFrom 10 to 20, two' },
  ],
  metadata: { source: 'avtime', duration_ms: 1000, event_count: 2 },
});

describe('hostile input: fuzz of every input parser through its verb (issue 33, point 8)', function () {
  this.timeout(120_000);
  let work: string;
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-work-'));
  });
  after(() => {
    fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('jsonl rows: avtime build-grpo --input-jsonl', async () => {
    const input = path.join(work, 'sft.jsonl');
    const valid = JSON.stringify(row('b'));
    fs.writeFileSync(input, '');
    const target: Target = {
      name: 'build-grpo',
      file: input,
      run: async () => {
        for (const f of ['grpo.jsonl', 'grpo.report.json']) fs.rmSync(path.join(work, f), { force: true });
        return runCli([
          'avtime',
          'build-grpo',
          '--input-jsonl',
          input,
          '--output-jsonl',
          path.join(work, 'grpo.jsonl'),
          '--report-json',
          path.join(work, 'grpo.report.json'),
        ]);
      },
    };
    await fuzz(
      target,
      hostileText(valid, row('b')).map((b) => Buffer.concat([Buffer.from(JSON.stringify(row('a')) + '\n'), b, Buffer.from('\n')])),
    );
  });

  it('corpora: avtime split --source', async () => {
    const source = path.join(work, 'all.jsonl');
    fs.writeFileSync(source, '');
    const target: Target = {
      name: 'split',
      file: source,
      run: async () => {
        fs.rmSync(path.join(work, 'split-out'), { recursive: true, force: true });
        return runCli([
          'avtime',
          'split',
          '--source',
          source,
          '--output-root',
          path.join(work, 'split-out'),
          '--derive-test-ids',
          '--test-size',
          '1',
          '--expected-rows',
          '0',
        ]);
      },
    };
    const good = [row('a'), row('c')].map((r) => JSON.stringify(r)).join('\n') + '\n';
    await fuzz(
      target,
      hostileText(JSON.stringify(row('b')), row('b')).map((b) => Buffer.concat([Buffer.from(good), b, Buffer.from('\n')])),
    );
  });

  describe('a Frames × Pixels package', () => {
    let pkg: string;
    before(async function () {
      this.timeout(SAMPLE_TIMEOUT_MS);
      pkg = (await copySamplePackage()).root;
    });
    const dryRun = () => runCli(['dry-run', '--package', pkg]);

    it('CSV: results/conditions_results.csv through dry-run', async () => {
      const file = path.join(pkg, 'results', 'conditions_results.csv');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const cell = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('"', '""', '"a\nb"', ',', 'NaN', '-1', '1e309', '../../x', '\r'));
      const csv = fc
        .tuple(fc.nat({ max: lines.length - 2 }), fc.array(cell, { minLength: 1, maxLength: 14 }))
        .map(([i, cells]) => Buffer.from([...lines.slice(0, i + 1), cells.join(','), ...lines.slice(i + 1)].join('\n')));
      await fuzz({ name: 'dry-run (CSV)', file, run: dryRun }, fc.oneof(csv, hostileText(lines.slice(0, 3).join('\n'))));
    });

    it("meta.json: a stored video's meta through dry-run", async () => {
      const store = path.join(pkg, 'data', 'store', 'normalized');
      const file = path.join(store, fs.readdirSync(store).sort()[0], 'meta.json');
      const valid = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      const small = { ...valid, timestamps: (valid.timestamps as number[]).slice(0, 3) };
      await fuzz({ name: 'dry-run (meta.json)', file, run: dryRun }, hostileText(JSON.stringify(small), small));
    });

    it('items: items/samples/<bench>.jsonl through dry-run', async () => {
      const samples = path.join(pkg, 'items', 'samples');
      const file = path.join(samples, fs.readdirSync(samples).sort()[0]);
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const rest = Buffer.from(lines.slice(1).join('\n') + '\n');
      const first = hostileText(lines[0], JSON.parse(lines[0]));
      await fuzz(
        { name: 'dry-run (items)', file, run: dryRun },
        first.map((b) => Buffer.concat([b, Buffer.from('\n'), rest])),
      );
    });

    it('manifests: videos/videos_manifest.json through prepare', async () => {
      const file = path.join(pkg, 'videos', 'videos_manifest.json');
      const valid = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      // prepare's 1 is a shard that failed its checks (a fuzzed hash or size): refused, named, not a crash.
      await fuzz(
        { name: 'prepare (manifest)', file, run: () => runCli(['prepare', '--package', pkg]), alsoAllowed: [1] },
        hostileText(JSON.stringify(valid), valid),
      );
    });
  });

  it('segments.json: a caption root', async () => {
    const root = fs.mkdtempSync(path.join(work, 'videos-'));
    const dir = path.join(root, 'v1');
    fs.mkdirSync(path.join(dir, 'clips'), { recursive: true });
    const valid = {
      input_video: '/data/videos/v1.mp4',
      duration_sec: 4,
      detectors: { asr: 'unavailable', scene: 'ffmpeg', audio_events: 'unavailable' },
      config: {},
      candidates: {},
      segments: [{ index: 1, clip_path: 'clips/clip_0001.mp4', start_sec: 0, end_sec: 4, duration_sec: 4, boundary: { source: 'start' }, labels: {} }],
    };
    const file = path.join(dir, 'segments.json');
    fs.writeFileSync(file, JSON.stringify(valid));
    // No server answers: a video that parses fails on its missing clip (exit 1, the run's documented failure).
    const run = () => runCli(['avtime', 'caption', root, '--base-url', 'http://127.0.0.1:9', '--no-preflight', '--retries', '0', '--retry-delay-ms', '1']);
    await fuzz({ name: 'caption (segments.json)', file, run, alsoAllowed: [1] }, hostileText(JSON.stringify(valid), valid));
  });
});

// A package reached through a symlink (as on clusters: /data → /mnt/nvme0/…), run end to end. vLLM 0.11
// resolves each file:// path but takes --allowed-local-media-path literally (vllm/multimodal/utils.py),
// and so does the stand-in: the run works only when the flag and the URLs name the store's real path.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { copySamplePackage, getSamplePackage, SAMPLE_TIMEOUT_MS } from '../sample/fixture';
import { PackageLayout } from '../../../../../src/core/protocols/fp/package/layout';
import { runSweep } from '../../../../../src/core/protocols/fp/sweep/sweep';
import { defaultSweepDeps } from '../../../../../src/core/protocols/fp/sweep/adapters';
import { runOptionsSchema, type RunOptionsInput } from '../../../../../src/core/protocols/fp/sweep/runOptions';
import { FAKE_VLLM, freePortRange, startStandin, withEnv } from './helpers';

const RUN = { benchmarks: ['MVBench'], conditions: ['v_blind', 'v_8_s224'] };

/** A copy of the sample package under real/, used as link/fp where link → real. */
async function linkedPackage(): Promise<{ real: string; linked: string }> {
  const sample = await copySamplePackage();
  const top = path.dirname(sample.root);
  await fs.mkdir(path.join(top, 'real'));
  await fs.rename(sample.root, path.join(top, 'real', 'fp'));
  await fs.symlink(path.join(top, 'real'), path.join(top, 'link'));
  return { real: path.join(await fs.realpath(top), 'real', 'fp'), linked: path.join(top, 'link', 'fp') };
}

async function inspectLines(file: string): Promise<{ status: number; error: string | null; images: { source: string; path: string | null }[] }[]> {
  return (await fs.readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

async function failureKinds(layout: PackageLayout): Promise<string[]> {
  const text = await fs.readFile(layout.failuresLog, 'utf8').catch(() => '');
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((f) => f.kind !== 'no_video')
    .map((f) => `${f.kind}: ${String(f.message).slice(0, 160)}`);
}

describe('runner: a package reached through a symlink', function () {
  this.timeout(120_000);
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    await getSamplePackage();
  });

  it('runs on launched servers: the flag and every file:// URL name the real frame store', async () => {
    const { real, linked } = await linkedPackage();
    const layout = new PackageLayout(linked);
    const inspect = path.join(real, 'inspect.jsonl');
    const base = await freePortRange(2);
    const opts: RunOptionsInput = { package: linked, ngpu: 2, basePort: base, vllmBin: FAKE_VLLM, decodeWorkers: 2, ...RUN };
    const res = await withEnv({ VLLM_BIN: FAKE_VLLM, FPSWEEP_STANDIN_INSPECT: inspect }, () => runSweep(runOptionsSchema.parse(opts), defaultSweepDeps));
    assert.equal(res.exitCode, 0, res.summary);
    assert.deepEqual(await failureKinds(layout), [], 'no request refused');
    assert.ok(res.added.ok > 0, res.summary);
    const realStore = path.join(real, '.fpsweep', 'frames');
    const launch = await fs.readFile(layout.launchParams, 'utf8');
    assert.ok(launch.includes(`--allowed-local-media-path ${realStore}`), launch);
    const lines = await inspectLines(inspect);
    const files = lines.flatMap((l) => l.images).filter((i) => i.source === 'file');
    assert.ok(files.length > 0, 'frames went as file:// URLs');
    assert.deepEqual(
      files.filter((i) => !i.path?.startsWith(realStore + '/')).map((i) => i.path),
      [],
      'every URL under the real store',
    );
    assert.deepEqual(
      lines.filter((l) => l.status !== 200).map((l) => l.error),
      [],
    );
  });

  it('runs with --endpoints on a server started with the link path as its media path (frames go as data: URLs)', async () => {
    const { real, linked } = await linkedPackage();
    const layout = new PackageLayout(linked);
    const inspect = path.join(real, 'inspect.jsonl');
    await fs.mkdir(layout.frameStoreDir, { recursive: true });
    const server = await startStandin({ mediaPath: layout.frameStoreDir, env: { FPSWEEP_STANDIN_INSPECT: inspect } });
    try {
      const opts: RunOptionsInput = { package: linked, endpoints: [server.url], decodeWorkers: 2, ...RUN };
      const res = await runSweep(runOptionsSchema.parse(opts), defaultSweepDeps);
      assert.equal(res.exitCode, 0, res.summary);
      assert.deepEqual(await failureKinds(layout), [], 'no request refused');
      assert.ok(res.added.ok > 0, res.summary);
      const lines = await inspectLines(inspect);
      assert.ok(lines.some((l) => l.images.length > 0));
      assert.deepEqual([...new Set(lines.flatMap((l) => l.images.map((i) => i.source)))], ['data']);
    } finally {
      await server.stop();
    }
  });
});

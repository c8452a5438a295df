// `fpsweep sample` from the command line: usage errors, refusing to overwrite, and one real
// `--no-extract` run whose files must equal the shared package's byte for byte (determinism).
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../../../src/cli/main';
import { getSamplePackage, SAMPLE_TIMEOUT_MS } from './fixture';

async function listFiles(root: string, skip: (rel: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = path.relative(root, p);
      if (skip(rel)) continue;
      if (e.isDirectory()) await walk(p);
      else out.push(rel);
    }
  };
  await walk(root);
  return out.sort();
}

/** Runs the CLI with stderr captured (stdout still prints: the summary is shown, not asserted). */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: await main(['sample', ...args]), stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe('fpsweep sample: the command', function () {
  this.timeout(SAMPLE_TIMEOUT_MS);
  let tmp: string;

  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-sample-cli-'));
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('needs --out and rejects unknown flags and a bad scale (exit 2)', async () => {
    assert.equal((await cli([])).code, 2);
    assert.match((await cli([])).stderr, /--out DIR is required/);
    assert.equal((await cli(['--out', tmp, '--bogus'])).code, 2);
    const bad = await cli(['--out', path.join(tmp, 'p'), '--scale', '0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /whole number/);
  });

  it('refuses a non-empty folder, and --force refuses one that is not a run package', async () => {
    await fs.writeFile(path.join(tmp, 'notes.txt'), 'mine');
    const refused = await cli(['--out', tmp]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not empty/);
    const forced = await cli(['--out', tmp, '--force']);
    assert.equal(forced.code, 2);
    assert.match(forced.stderr, /does not look like a run package/);
    await fs.mkdir(path.join(tmp, 'items'));
    const mixed = await cli(['--out', tmp, '--force']);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /notes\.txt/);
    assert.equal(await fs.readFile(path.join(tmp, 'notes.txt'), 'utf8'), 'mine');
  });

  it('--force clears an earlier package (and only its entries) before making a new one', async () => {
    for (const d of ['items', 'videos', 'results']) await fs.mkdir(path.join(tmp, d));
    await fs.writeFile(path.join(tmp, 'fp_returns.sha256'), 'x');
    const saved = process.env.FFMPEG_BIN;
    process.env.FFMPEG_BIN = '/bin/false'; // stop right after the clearing: encoding fails at once
    try {
      const r = await cli(['--out', tmp, '--force']);
      assert.equal(r.code, 1);
      assert.deepEqual(await fs.readdir(tmp), []);
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_BIN;
      else process.env.FFMPEG_BIN = saved;
    }
  });

  for (const [what, bin, message] of [
    ['ffmpeg is missing', '/nonexistent/ffmpeg', /was not found; install ffmpeg/],
    ['ffmpeg dies at once', '/bin/false', /ffmpeg failed to encode/],
  ] as const) {
    it(`fails with a clear message and leaves nothing behind when ${what}`, async () => {
      const saved = process.env.FFMPEG_BIN;
      process.env.FFMPEG_BIN = bin;
      try {
        const out = path.join(tmp, 'fp');
        const r = await cli(['--out', out]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, message);
        assert.deepEqual(await fs.readdir(tmp), []);
      } finally {
        if (saved === undefined) delete process.env.FFMPEG_BIN;
        else process.env.FFMPEG_BIN = saved;
      }
    });
  }

  it('--no-extract makes only the shards, byte-identical to the shared package (same seed, same output)', async () => {
    const shared = await getSamplePackage();
    const out = path.join(tmp, 'fp');
    assert.equal((await cli(['--out', out, '--no-extract'])).code, 0);
    await assert.rejects(fs.stat(path.join(out, 'data')), { code: 'ENOENT' });
    const mine = await listFiles(out);
    const theirs = await listFiles(shared.root, (rel) => rel === 'data');
    assert.deepEqual(mine, theirs);
    for (const rel of mine) {
      assert.ok((await fs.readFile(path.join(out, rel))).equals(await fs.readFile(path.join(shared.root, rel))), rel);
    }
    // Nothing half-made is left beside the package.
    assert.deepEqual(await fs.readdir(tmp), ['fp']);
  });
});

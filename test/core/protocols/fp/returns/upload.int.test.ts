import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startStandinHub, type StandinHub, type StandinHubOptions } from '../../../../../src/standins/hub/server';
import { makeReturns } from '../../../../../src/core/protocols/fp/returns/returns';
import { makeReturnsPackage, listFiles } from './fixture';
import { tempDir, removeTempDirs } from './tmpDirs';

const REPO = 'GMLRVigil/BenchCheck-FramesPixels';
const WRITE = 'hf_writeTokenForTests0123456789abcd';
const READ = 'hf_readOnlyTokenForTests0123456789ab';
const OUTSIDER = 'hf_outsiderTokenForTests012345678901';
const UNKNOWN = 'hf_unknownTokenForTests0123456789abc';
const date = new Date(2026, 11, 2);
const fastRetry = { baseDelayMs: 1, maxDelayMs: 5 };

async function hub(extra: Partial<StandinHubOptions> = {}): Promise<StandinHub> {
  return startStandinHub({
    tokens: {
      [WRITE]: { user: 'alice', role: 'write', orgs: ['GMLRVigil'] },
      [READ]: { user: 'bob', role: 'read', orgs: ['GMLRVigil'] },
      [OUTSIDER]: { user: 'eve', role: 'write', orgs: ['elsewhere'] },
    },
    ...extra,
  });
}

/** An env with no token anywhere (HF_HOME points at an empty folder). */
async function emptyEnv(): Promise<NodeJS.ProcessEnv> {
  return { HF_HOME: await tempDir('fp-hfhome-') };
}

async function assertTokenNowhere(token: string, dirs: string[], texts: string[]): Promise<void> {
  const needle = Buffer.from(token);
  for (const dir of dirs) {
    for (const rel of await listFiles(dir)) {
      const bytes = await fs.readFile(path.join(dir, rel));
      assert.equal(bytes.includes(needle), false, `token found in ${rel}`);
      if (rel.endsWith('.tar.gz')) assert.equal(gunzipSync(bytes).includes(needle), false, `token inside ${rel}`);
    }
  }
  for (const t of texts) assert.equal(t.includes(token), false, `token in output: ${t}`);
}

describe('returns upload to the stand-in hub', function () {
  this.timeout(20000);
  let h: StandinHub | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('basic transfer: both files land under returns/ with the exact bytes; the .sha256 travels as a regular file', async () => {
    h = await hub();
    const dir = await makeReturnsPackage();
    const lines: string[] = [];
    const out = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      token: WRITE,
      hostname: 'gpuhost',
      date,
      env: await emptyEnv(),
      retry: fastRetry,
      onMessage: (l) => lines.push(l),
    });
    assert.equal(out.upload.status, 'uploaded', out.summary);
    assert.equal(out.exitCode, 0);
    const files = h.files(REPO);
    assert.deepEqual([...files.keys()].sort(), ['returns/fp_returns_gpuhost_20261202.sha256', 'returns/fp_returns_gpuhost_20261202.tar.gz']);
    assert.deepEqual(files.get('returns/fp_returns_gpuhost_20261202.tar.gz')!.content, await fs.readFile(out.tarball.tarballPath));
    assert.equal(files.get('returns/fp_returns_gpuhost_20261202.tar.gz')!.viaLfs, true);
    assert.equal(files.get('returns/fp_returns_gpuhost_20261202.sha256')!.viaLfs, false);
    assert.equal(files.get('returns/fp_returns_gpuhost_20261202.sha256')!.content.toString(), `${out.tarball.sha256}  fp_returns_gpuhost_20261202.tar.gz\n`);
    assert.deepEqual([...h.transfers.values()], ['basic']);
    assert.equal(h.commits.length, 1);
    assert.match(
      out.summary,
      /^uploaded 2 of 2 files \(\d+ bytes\) to datasets\/GMLRVigil\/BenchCheck-FramesPixels under returns\/ in [\d.]+ s with 0 retries; commit [0-9a-f]{40}$/,
    );
    await assertTokenNowhere(WRITE, [dir], [...lines, out.summary]);
  });

  it('multipart transfer with one part failing once: the retry succeeds and the assembled bytes match', async () => {
    h = await hub({ multipartThreshold: 100_000, chunkSize: 64 * 1024, failPartOnce: [2] });
    const dir = await makeReturnsPackage(300_000);
    const lines: string[] = [];
    const progress: number[] = [];
    const out = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      token: WRITE,
      hostname: 'gpuhost',
      date,
      env: await emptyEnv(),
      retry: fastRetry,
      onMessage: (l) => lines.push(l),
      onProgress: (p) => progress.push(p.doneBytes),
    });
    assert.equal(out.upload.status, 'uploaded', out.summary);
    assert.ok(out.tarball.bytes > 4 * 64 * 1024, 'tarball must span several parts');
    assert.deepEqual([...h.transfers.values()], ['multipart']);
    const failed = h.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/2') && r.status === 500);
    assert.equal(failed.length, 1);
    assert.equal(h.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/2') && r.status === 200).length, 1);
    assert.deepEqual(h.files(REPO).get('returns/fp_returns_gpuhost_20261202.tar.gz')!.content, await fs.readFile(out.tarball.tarballPath));
    assert.ok(out.upload.status === 'uploaded' && out.upload.result.retries === 1);
    assert.ok(
      lines.some((l) => /retry 1 of PUT .*\/_lfs\/part\/[0-9a-f]{64}\/2: HTTP 500/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.every((l) => !l.includes('sig=')),
      'presigned query strings are not printed',
    );
    assert.match(out.summary, /with 1 retry;/);
    await assertTokenNowhere(WRITE, [dir], [...lines, out.summary]);
  });

  it('retries a 503 on the commit call and a 429 on the LFS batch', async () => {
    h = await hub({
      failOnce: [
        { method: 'POST', pathIncludes: '/commit/', status: 503 },
        { method: 'POST', pathIncludes: '/objects/batch', status: 429 },
      ],
    });
    const dir = await makeReturnsPackage();
    const out = await makeReturns({ packageDir: dir, upload: true, hubUrl: h.url, token: WRITE, hostname: 'h', date, env: await emptyEnv(), retry: fastRetry });
    assert.equal(out.upload.status, 'uploaded', out.summary);
    assert.ok(out.upload.status === 'uploaded' && out.upload.result.retries === 2);
    assert.equal(h.commits.length, 1);
  });

  it('gives up after the bounded number of attempts and says so, leaving the files ready', async () => {
    h = await hub({ failOnce: [{ method: 'POST', pathIncludes: '/preupload/', status: 502, times: 100 }] });
    const dir = await makeReturnsPackage();
    const out = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      token: WRITE,
      hostname: 'h',
      date,
      env: await emptyEnv(),
      retry: { ...fastRetry, maxAttempts: 3 },
    });
    assert.equal(out.upload.status, 'failed');
    assert.equal(out.exitCode, 1);
    assert.equal(h.requests.filter((r) => r.path.includes('/preupload/')).length, 3);
    assert.match(out.summary, /^uploaded 0 of 2 files: the hub answered 502/);
    await fs.access(out.tarball.tarballPath);
  });

  it('401: an unknown token is called invalid, revoked or expired', async () => {
    h = await hub();
    const dir = await makeReturnsPackage();
    const out = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      token: UNKNOWN,
      hostname: 'h',
      date,
      env: await emptyEnv(),
      retry: fastRetry,
    });
    assert.ok(out.upload.status === 'failed');
    assert.equal(out.upload.error.kind, 'token_invalid');
    assert.match(out.upload.error.message, /refused the token \(401\): it is invalid, revoked or expired/);
    assert.equal(h.files(REPO).size, 0);
    await assertTokenNowhere(UNKNOWN, [dir], [out.summary]);
  });

  it('403: a read-only token is told it lacks the write scope; a non-member is told so', async () => {
    h = await hub();
    const dir = await makeReturnsPackage();
    const ro = await makeReturns({ packageDir: dir, upload: true, hubUrl: h.url, token: READ, hostname: 'h', date, env: await emptyEnv(), retry: fastRetry });
    assert.ok(ro.upload.status === 'failed');
    assert.equal(ro.upload.error.kind, 'token_read_only');
    assert.match(ro.upload.error.message, /read-only: it is missing the write scope/);
    const outsider = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      token: OUTSIDER,
      hostname: 'h',
      date,
      env: await emptyEnv(),
      retry: fastRetry,
    });
    assert.ok(outsider.upload.status === 'failed');
    assert.equal(outsider.upload.error.kind, 'forbidden');
    assert.equal(outsider.upload.error.status, 403);
    assert.match(outsider.upload.error.message, /eve is not a member of the organisation 'GMLRVigil'/);
    assert.equal(h.files(REPO).size, 0);
  });

  it('no token anywhere: a clear message, exit 0, files ready for any transfer', async () => {
    const dir = await makeReturnsPackage();
    const out = await makeReturns({ packageDir: dir, upload: true, hubUrl: 'http://127.0.0.1:9', hostname: 'h', date, env: await emptyEnv() });
    assert.equal(out.upload.status, 'no_token');
    assert.equal(out.exitCode, 0);
    assert.match(out.summary, /^uploaded 0 of 2 files: no Hugging Face token .* are ready in .* for any file transfer$/);
    await fs.access(out.tarball.tarballPath);
    await fs.access(out.tarball.sha256Path);
  });

  it('reads the token file under HF_HOME when HF_TOKEN is unset', async () => {
    h = await hub();
    const dir = await makeReturnsPackage();
    const env = await emptyEnv();
    await fs.writeFile(path.join(env.HF_HOME!, 'token'), `${WRITE}\n`);
    const lines: string[] = [];
    const out = await makeReturns({
      packageDir: dir,
      upload: true,
      hubUrl: h.url,
      hostname: 'h',
      date,
      env,
      retry: fastRetry,
      onMessage: (l) => lines.push(l),
    });
    assert.equal(out.upload.status, 'uploaded', out.summary);
    assert.ok(lines.some((l) => l === `token from ${path.join(env.HF_HOME!, 'token')}`));
  });

  it('the CLI: `fpsweep return --upload` with HF_TOKEN, last line in numbers, token nowhere in output or package', async () => {
    h = await hub();
    const dir = await makeReturnsPackage();
    const env = { ...process.env, ...(await emptyEnv()), HF_TOKEN: WRITE };
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '../../../../../src/cli/main.ts'), 'return', '--package', dir, '--upload', '--hub-url', h.url],
      { env },
    );
    const last = stdout.trim().split('\n').pop()!;
    assert.match(last, /^uploaded 2 of 2 files \(\d+ bytes\) to datasets\/GMLRVigil\/BenchCheck-FramesPixels/);
    assert.match(stderr, /token from HF_TOKEN/);
    await assertTokenNowhere(WRITE, [dir], [stdout, stderr]);
  });
});

after(removeTempDirs);

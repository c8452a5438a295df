import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as tar from 'tar';
import { makeReturnsTarball, returnsNames, yyyymmdd } from '../../../../../src/core/protocols/fp/returns/tarball';
import { makeReturnsPackage, INCLUDED_FILES, listFiles } from './fixture';
import { removeTempDirs } from './tmpDirs';

async function tarEntries(file: string): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  await tar.t({
    file,
    onReadEntry: (e) => {
      const chunks: Buffer[] = [];
      e.on('data', (c: Buffer) => chunks.push(c));
      e.on('end', () => entries.set(e.path, Buffer.concat(chunks)));
    },
  });
  return entries;
}

describe('returns tarball', () => {
  const date = new Date(2026, 11, 2, 13, 0, 0);

  it('holds exactly the four returns paths, relative to the package root, read back byte for byte', async () => {
    const dir = await makeReturnsPackage();
    const r = await makeReturnsTarball(dir, { hostname: 'gpuhost', date });
    assert.equal(path.basename(r.tarballPath), 'fp_returns_gpuhost_20261202.tar.gz');
    assert.equal(path.dirname(r.tarballPath), dir);
    const entries = await tarEntries(r.tarballPath);
    const files = [...entries.keys()].filter((p) => !p.endsWith('/')).sort();
    assert.deepEqual(files, [...INCLUDED_FILES].sort());
    const dirs = [...entries.keys()].filter((p) => p.endsWith('/')).sort();
    assert.deepEqual(dirs, ['data/logs/', 'logs/', 'results/p1_raw/', 'results/p1_raw/v_1/', 'results/p1_raw/v_fps1_s224/']);
    for (const f of INCLUDED_FILES) assert.equal(entries.get(f)!.toString(), `content of ${f}\n`);
    assert.equal(r.files, INCLUDED_FILES.length);
  });

  it('writes fp_returns.sha256 in sha256sum format, matching the tarball bytes (and sha256sum -c agrees)', async () => {
    const dir = await makeReturnsPackage();
    const r = await makeReturnsTarball(dir, { hostname: 'gpuhost', date });
    const text = await fs.readFile(path.join(dir, 'fp_returns.sha256'), 'utf8');
    const hex = createHash('sha256')
      .update(await fs.readFile(r.tarballPath))
      .digest('hex');
    assert.equal(text, `${hex}  fp_returns_gpuhost_20261202.tar.gz\n`);
    assert.equal(r.sha256, hex);
    assert.equal(r.bytes, (await fs.stat(r.tarballPath)).size);
    const out = execFileSync('sha256sum', ['-c', 'fp_returns.sha256'], { cwd: dir }).toString();
    assert.match(out, /fp_returns_gpuhost_20261202\.tar\.gz: OK/);
  });

  it('leaves no temporary file and replaces an earlier tarball of the same day atomically', async () => {
    const dir = await makeReturnsPackage();
    await makeReturnsTarball(dir, { hostname: 'h', date });
    await fs.appendFile(path.join(dir, 'logs/runner.log'), 'more\n');
    const r2 = await makeReturnsTarball(dir, { hostname: 'h', date });
    const top = (await fs.readdir(dir)).filter((n) => n.includes('fp_returns')).sort();
    assert.deepEqual(top, ['fp_returns.sha256', 'fp_returns_h_20261202.tar.gz']);
    assert.ok((await tarEntries(r2.tarballPath)).has('logs/runner.log'));
  });

  it('refuses to make partial returns when an input path is missing, naming it', async () => {
    const dir = await makeReturnsPackage();
    await fs.rm(path.join(dir, 'results/p1_raw'), { recursive: true });
    await assert.rejects(makeReturnsTarball(dir, { hostname: 'h', date }), /results\/p1_raw missing/);
    assert.deepEqual(
      (await listFiles(dir)).filter((f) => f.includes('fp_returns')),
      [],
    );
  });

  it('names: local date as YYYYMMDD and a hostname that must be a plain name', () => {
    assert.equal(yyyymmdd(new Date(2026, 0, 5)), '20260105');
    assert.equal(returnsNames('node-1', new Date(2026, 0, 5)).hubSha256, 'fp_returns_node-1_20260105.sha256');
    assert.throws(() => returnsNames('a/b', date), /cannot be part of a file name/);
  });
});

describe('returns tarball progress', () => {
  it('reports progress up to exactly the tar stream size (headers and padding included), never past it', async () => {
    const dir = await makeReturnsPackage(50_000);
    const seen: Array<{ done: number; total: number }> = [];
    await makeReturnsTarball(dir, { hostname: 'h', date: new Date(2026, 0, 1), onProgress: (p) => seen.push({ done: p.doneBytes, total: p.totalBytes }) });
    const last = seen[seen.length - 1];
    assert.ok(seen.length >= 1);
    assert.equal(last.done, last.total);
    assert.ok(seen.every((s) => s.done <= s.total));
  });
});

after(removeTempDirs);

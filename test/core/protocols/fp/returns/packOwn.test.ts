// The returns' tar stream packed from our own descriptors (issue 42, point 4) is the stream node-tar's
// `tar.c({ portable: true })` made before, byte for byte (a long path's pax header, an empty file, a body that is not
// a whole block, nested folders), and python3's tarfile lists and extracts the same files with the same sha256s.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar';
import { packOwn } from '../../../../../src/core/protocols/fp/returns/packOwn';
import { makeReturnsTarball, RETURNS_PATHS } from '../../../../../src/core/protocols/fp/returns/tarball';
import { listFiles, makeReturnsPackage } from './fixture';
import { removeTempDirs, tempDir } from './tmpDirs';

async function collect(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The fixture package with what exercises the headers: a path past 100 bytes, an empty file, 1000 odd bytes, a folder of folders. */
async function richPackage(): Promise<string> {
  const dir = await makeReturnsPackage();
  const long = path.join(dir, 'results/p1_raw', 'v_'.padEnd(60, 'x'), `${'Bench'.padEnd(70, 'y')}__DIAG_V.jsonl`);
  await fs.mkdir(path.dirname(long), { recursive: true });
  await fs.writeFile(long, 'a long name\n');
  await fs.writeFile(path.join(dir, 'logs', 'empty.log'), '');
  await fs.writeFile(path.join(dir, 'data/logs', 'odd.jsonl'), Buffer.alloc(1000, 7));
  await fs.mkdir(path.join(dir, 'logs', 'a', 'b'), { recursive: true });
  await fs.writeFile(path.join(dir, 'logs', 'a', 'b', 'deep.log'), 'deep\n');
  await fs.chmod(path.join(dir, 'logs', 'vllm_gpu0.log'), 0o664);
  return dir;
}

const PY_LIST = `
import hashlib, json, sys, tarfile
out = {}
with tarfile.open(sys.argv[1], 'r:gz') as t:
    t.extractall(sys.argv[2], **({'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}))
    for m in t.getmembers():
        out[m.name] = hashlib.sha256(t.extractfile(m).read()).hexdigest() if m.isfile() else m.type.decode()
print(json.dumps(out))
`;

describe('returns tar stream from our own descriptors (issue 42, point 4)', () => {
  after(removeTempDirs);

  it("is node-tar's tar.c({ portable: true }) stream, byte for byte", async () => {
    const dir = await richPackage();
    const theirs = await collect(tar.c({ cwd: dir, portable: true }, [...RETURNS_PATHS]) as unknown as AsyncIterable<Buffer>);
    const ours = await collect(packOwn(dir, RETURNS_PATHS));
    assert.ok(ours.length > 10 * 512);
    assert.equal(ours.length, theirs.length);
    assert.ok(ours.equals(theirs), 'the same bytes');
  });

  it("python3's tarfile lists and extracts the same files with the same sha256s; fp_returns.sha256 matches", async () => {
    const dir = await richPackage();
    const r = await makeReturnsTarball(dir, { hostname: 'h', date: new Date(2026, 11, 2) });
    const into = await tempDir('fp-returns-extract-');
    const listed = JSON.parse(execFileSync('/usr/bin/python3', ['-c', PY_LIST, r.tarballPath, into]).toString()) as Record<string, string>;
    const files = (await listFiles(dir)).filter((f) => RETURNS_PATHS.some((p) => f === p || f.startsWith(`${p}/`))).sort();
    const sha = async (f: string) =>
      createHash('sha256')
        .update(await fs.readFile(f))
        .digest('hex');
    const want: Record<string, string> = {};
    for (const f of files) want[f] = await sha(path.join(dir, f));
    const got = Object.fromEntries(Object.entries(listed).filter(([, v]) => v.length === 64));
    assert.deepEqual(got, want);
    assert.deepEqual((await listFiles(into)).sort(), files, 'extracted: the same files');
    for (const f of files) assert.equal(await sha(path.join(into, f)), want[f], f);
    assert.equal(Object.keys(listed).length - files.length, 8, 'and the 8 folders');
    const hex = await sha(r.tarballPath);
    assert.equal(await fs.readFile(r.sha256Path, 'utf8'), `${hex}  ${r.names.tarball}\n`);
    // The .tar.gz holds the stream node-tar made, gzipped.
    const theirs = await collect(tar.c({ cwd: dir, portable: true }, [...RETURNS_PATHS]) as unknown as AsyncIterable<Buffer>);
    assert.ok(gunzipSync(await fs.readFile(r.tarballPath)).equals(theirs));
  });
});

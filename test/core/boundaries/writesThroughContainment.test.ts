// Issue 33: every write, append, rename, mkdir and delete that engine or run-type code makes under a root goes through
// the containment module (src/core/containment/: components checked on disk, no link followed). This test fails when
// a file under src/core or src/worker calls Node's writing file functions itself; the few that may are listed below,
// each with why, in this one place.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

const SAMPLE = 'a sample maker: builds a new root from nothing (its own staging folder, renamed in) where the user asks, never a run';

/** Files that call Node's writing functions themselves, and why that is safe. Keep it short. */
const ALLOWED: Record<string, string> = {
  'core/containment/rootFs.ts': 'the containment module itself',
  'core/containment/dirHandle.ts': 'the containment module itself: a folder held open, names reached through its descriptor',
  'core/containment/mkdirs.ts': 'the containment module itself: folders made one component at a time from the root',
  'core/runner/atomicFile.ts':
    'the atomic write: its folder made and checked by the module, the temp made O_EXCL (never follows a link), renamed over the target',
  'core/runner/lock.ts':
    'the worker lock: its folder, temp file, take-over and release go through the module; only fs.link (atomic, never clobbers) puts the whole temp in place',
  'core/protocols/fp/frames/rawTransport.ts': "a private temp folder of its own (mkdtemp under the system's temp folder), not under any root",
  'core/protocols/fp/sample/makeSample.ts': SAMPLE,
  'core/protocols/fp/sample/shards.ts': SAMPLE,
  'core/protocols/avtime/sample/make.ts': SAMPLE,
  'core/protocols/caption/sample/make.ts': SAMPLE,
  'core/protocols/cut/sample/make.ts': SAMPLE,
  'core/protocols/avtime/cli/avtime.ts': "the demo's own sample bench, made again from nothing on --fresh",
};

/** Node's file functions that write, rename or delete (as `fs.x(`, `x(` / `xSync(` when imported by name). */
const WRITERS = 'writeFile|appendFile|rename|rm|rmdir|unlink|mkdir|mkdtemp|copyFile|cp|symlink|link|truncate|ftruncate|createWriteStream';
const WRITING = new RegExp(`(?:\\b(?:fs|nodeFs|fsp)\\.|(?<![\\w.]))(?:${WRITERS})(?:Sync)?\\(`);
/** An open for anything but reading ('r' is the only read-only flag the code uses); not a method's declaration. */
const OPEN_CALL = /(?:\b(?:fs|nodeFs)\.|(?<![\w.]|async |function ))open(?:Sync)?\(/;
const OPEN_TO_WRITE = new RegExp(`${OPEN_CALL.source}[^,()]+,\\s*(?!'r')['a-zA-Z]`);
/** An open with numeric flags that only read (O_RDONLY, with O_NOFOLLOW and the like): the upload's own open. */
const readOnlyFlags = (text: string) => /\bO_RDONLY\b/.test(text) && !/\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b/.test(text);
const opensToWrite = (text: string) => OPEN_TO_WRITE.test(text) && !readOnlyFlags(text);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** `file:line  text` for each call that writes, outside comments. */
function writingCalls(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, line: i + 1 }))
    .filter(({ text }) => !/^\s*(\/\/|\*|\/\*)/.test(text))
    .filter(({ text }) => WRITING.test(text) || opensToWrite(text))
    .map(({ text, line }) => `${path.relative(SRC, file)}:${line}  ${text.trim()}`);
}

describe('writes under a root go through the containment module (issue 33)', () => {
  const files = [...tsFiles(path.join(SRC, 'core')), ...tsFiles(path.join(SRC, 'worker'))];

  it('no engine or run-type file writes, renames or deletes with Node itself, but the few allowed', () => {
    const found = files.filter((f) => !(path.relative(SRC, f) in ALLOWED)).flatMap(writingCalls);
    assert.deepEqual(found, [], `write through src/core/containment/rootFs.ts (or atomicFile/AppendFile) instead:\n${found.join('\n')}`);
  });

  it('the scan sees a direct write (it can fail), and every allowed file still exists', () => {
    const probe = path.join(SRC, 'core/containment/rootFs.ts');
    assert.ok(writingCalls(probe).length > 0, 'the module itself is seen writing');
    assert.ok(!opensToWrite('const fh = await fs.open(file, C.O_RDONLY | (C.O_NOFOLLOW ?? 0))'), 'a read-only open is a read');
    assert.ok(opensToWrite('const fh = await fs.open(file, C.O_RDONLY | C.O_CREAT)'), 'O_CREAT writes');
    assert.ok(opensToWrite('const fh = await fs.open(file, C.O_WRONLY | C.O_NOFOLLOW)'), 'O_WRONLY writes');
    assert.ok(opensToWrite("const fh = await fs.open(file, 'w')"), "'w' writes");
    for (const f of Object.keys(ALLOWED)) assert.ok(files.includes(path.join(SRC, f)), `${f} is listed but gone: drop it from ALLOWED`);
  });
});

// Issue 42, attack 4: the GPU helper (resources/python/fp_gpu_frames.py) wrote each JPEG with open(part, "wb"), so a
// link planted at `<temp>.jpg.part` (the names were predictable) cut and overwrote the file it pointed at. The
// helper's write function, run by this machine's python3 (no torch needed): a planted `.part` (a link, or a file) is
// an error and nothing outside changes; a folder that is not a private folder of ours is refused before a byte is
// written; and the node side gives the helper only paths in a fresh folder it made (0700, an unpredictable name).
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultGpuHelperPath } from '../../../../src/core/protocols/fp/frames/gpu/probe';
import { FrameStore } from '../../../../src/core/protocols/fp/frames/store';
import { hostileDir, removeHostileDirs, snapshot } from './hostileFiles';

const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** The helper's write_output(path, data) in a python3 of its own; its exit code and stderr. */
function writeOutput(target: string, data: string): Promise<{ code: number; err: string }> {
  const script = [
    'import sys',
    `sys.path.insert(0, ${JSON.stringify(path.dirname(defaultGpuHelperPath()))})`,
    'import fp_gpu_frames as h',
    'h.write_output(sys.argv[1], sys.argv[2].encode())',
  ].join('\n');
  return new Promise((resolve) => {
    execFile(PYTHON, ['-c', script, target, data], (error, _out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, err }));
  });
}

describe('hostile GPU helper outputs: links planted at its temp names (issue 42, attack 4)', function () {
  this.timeout(30_000);
  after(removeHostileDirs);

  function privateFolder(): string {
    const d = path.join(hostileDir('fp-hostile-helper-'), 'stage');
    fs.mkdirSync(d, { mode: 0o700 });
    return d;
  }

  it('writes a JPEG in a private folder of ours through `.part` (nothing left but the JPEG)', async () => {
    const stage = privateFolder();
    const r = await writeOutput(path.join(stage, '0.jpg'), 'JPEG bytes');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(fs.readdirSync(stage), ['0.jpg']);
    assert.equal(fs.readFileSync(path.join(stage, '0.jpg'), 'utf8'), 'JPEG bytes');
  });

  it('a link planted at `<name>.part` is an error: the outside file is neither cut nor overwritten', async () => {
    const stage = privateFolder();
    const outside = hostileDir('fp-hostile-helper-outside-');
    fs.writeFileSync(path.join(outside, 'victim'), 'the outside file\n');
    const before = snapshot(outside);
    fs.symlinkSync(path.join(outside, 'victim'), path.join(stage, '0.jpg.part'));
    const r = await writeOutput(path.join(stage, '0.jpg'), 'JPEG bytes');
    assert.notEqual(r.code, 0);
    assert.match(r.err, /FileExistsError/);
    assert.deepEqual(snapshot(outside), before, 'the outside file unchanged');
    assert.equal(fs.existsSync(path.join(stage, '0.jpg')), false);
  });

  it('a folder that others can write (or that is a link) is refused before anything is written', async () => {
    const open = path.join(hostileDir('fp-hostile-helper-open-'), 'stage');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    const r = await writeOutput(path.join(open, '0.jpg'), 'JPEG bytes');
    assert.notEqual(r.code, 0);
    assert.match(r.err, /not a private folder of ours/);
    assert.deepEqual(fs.readdirSync(open), []);
    const outside = hostileDir('fp-hostile-helper-linked-');
    fs.chmodSync(outside, 0o700);
    const linked = path.join(hostileDir('fp-hostile-helper-link-'), 'stage');
    fs.symlinkSync(outside, linked);
    const viaLink = await writeOutput(path.join(linked, '0.jpg'), 'JPEG bytes');
    assert.notEqual(viaLink.code, 0);
    assert.match(viaLink.err, /OSError|Errno/);
    assert.deepEqual(fs.readdirSync(outside), []);
  });

  it("the node side's staging folder: made by us, mode 0700, an unpredictable name, inside the video's folder", async () => {
    const root = hostileDir('fp-hostile-stage-');
    const store = await FrameStore.open(root, path.join(root, 'frames'), 1e9);
    const video = await store.openVideo('h1');
    try {
      const [a, b] = [await video.stage(), await video.stage()];
      for (const s of [a, b]) {
        const st = fs.lstatSync(s.real);
        assert.ok(st.isDirectory());
        assert.equal(st.mode & 0o777, 0o700);
        assert.equal(path.dirname(s.real), path.join(fs.realpathSync(root), 'frames', 'h1'));
        assert.match(path.basename(s.real), new RegExp(`^\\.stage-${process.pid}-[0-9a-f]{16}$`));
      }
      assert.notEqual(a.real, b.real);
      await video.unstage(a);
      await video.unstage(b);
      assert.deepEqual(fs.readdirSync(path.join(root, 'frames', 'h1')), []);
    } finally {
      await video.close();
      await store.close();
    }
  });
});

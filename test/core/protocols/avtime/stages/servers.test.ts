import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { startServers, readServerRecords } from '../../../../../src/core/protocols/avtime/stages/servers';
import { mediaRoot } from '../../../../../src/core/protocols/avtime/stages/run';
import { freePortBase } from '../../../serving/helpers';
import { tmpDir } from './fixtures';

const BIN = path.join(__dirname, 'recordingVllm.js');

describe('avtime stages: servers on GPU groups (SPEC-AVTIME §3, §9)', function () {
  this.timeout(30_000);

  it('launches one `serve` per group: CUDA_VISIBLE_DEVICES = the group, TP, 65536, the real media path, 127.0.0.1, a key', async () => {
    const dir = tmpDir('servers');
    const record = path.join(dir, 'record');
    fs.mkdirSync(record);
    const realMedia = path.join(dir, 'media-real');
    fs.mkdirSync(realMedia);
    fs.symlinkSync(realMedia, path.join(dir, 'media-link'));
    const file = path.join(dir, 'media-link', 'v.mp4');
    fs.writeFileSync(file, 'x');
    const root = mediaRoot([{ videos: [file] } as never]);
    assert.equal(root, fs.realpathSync(realMedia), 'the allowed path is the real one (vLLM 0.11 resolves each file, takes the flag literally)');
    const layout = new AvtimeRunLayout(path.join(dir, 'out'), 'r1');
    const basePort = await freePortBase(2);
    process.env.RECORD_DIR = record;
    const s = await startServers({
      role: 'target',
      layout,
      model: '/models/avtime',
      groups: [
        [0, 1],
        [2, 3],
      ],
      tp: 2,
      basePort,
      mediaRoot: root,
      vllmBin: BIN,
    });
    try {
      assert.equal(s.endpoints.length, 2);
      assert.equal(s.servedModel, '/models/avtime');
      for (const [k, group] of [
        [0, '0,1'],
        [1, '2,3'],
      ] as const) {
        const rec = JSON.parse(fs.readFileSync(path.join(record, `${basePort + k}.json`), 'utf8'));
        assert.equal(rec.cuda, group);
        assert.ok(rec.keyLength >= 32, 'a generated key, in the environment');
        assert.deepEqual(rec.argv, [
          'serve',
          '/models/avtime',
          '--tensor-parallel-size',
          '2',
          '--max-model-len',
          '65536',
          '--allowed-local-media-path',
          root,
          // SPEC-AVTIME §3: one video and its audio per prompt; the processor cache off (vLLM issue #44538).
          '--limit-mm-per-prompt',
          '{"video": 1, "audio": 1}',
          '--mm-processor-cache-gb',
          '0',
          '--port',
          String(basePort + k),
          '--host',
          '127.0.0.1',
        ]);
      }
      const recs = await readServerRecords(layout);
      assert.equal(recs.target?.vllm_version, '0.11.0');
      assert.match(recs.target!.launch_lines[1], /^CUDA_VISIBLE_DEVICES=2,3 VLLM_API_KEY=<redacted> /);
    } finally {
      await s.fleet.stop();
      delete process.env.RECORD_DIR;
    }
  });

  it('refuses a group whose size is not the tensor-parallel size', async () => {
    const layout = new AvtimeRunLayout(path.join(tmpDir('servers'), 'out'), 'r1');
    await assert.rejects(
      startServers({ role: 'judge', layout, model: 'j', groups: [[0, 1, 2]], tp: 8, basePort: 9000, vllmBin: BIN }),
      /--judge-gpus group 0,1,2 has 3 GPU\(s\) but --judge-tp is 8/,
    );
  });
});

// The extension's server ports are marked "ignore" for VS Code's port forwarding (issue 11 point 6).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_BASE_PORT, MAX_GPUS, keyCoversPort, serverPortsAttributes } from '../../src/extension/portAttributes';
import { runOptionsSchema } from '../../src/core/protocols/fp/sweep/runOptions';

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));

describe('extension: port attributes of the vLLM servers', () => {
  it('package.json makes VS Code ignore the ports of servers 0 … 15 by default, and nothing else', () => {
    const contributed = pkg.contributes?.configurationDefaults?.['remote.portsAttributes'];
    assert.deepEqual(contributed, serverPortsAttributes());
    const keys = Object.keys(contributed);
    const base = runOptionsSchema.parse({ package: '/p' }).basePort;
    assert.equal(base, DEFAULT_BASE_PORT, 'the launcher and the extension agree on the first port');
    for (let gpu = 0; gpu < MAX_GPUS; gpu++)
      assert.ok(
        keys.some((k) => keyCoversPort(k, base + gpu)),
        `GPU ${gpu}`,
      );
    for (const other of [base - 1, base + MAX_GPUS, 3000, 8080]) assert.ok(!keys.some((k) => keyCoversPort(k, other)), String(other));
    for (const v of Object.values(contributed) as { onAutoForward: string }[]) assert.equal(v.onAutoForward, 'ignore');
  });

  it('refuses ranges that do not exist', () => {
    assert.throws(() => serverPortsAttributes(65530, 16), RangeError);
    assert.throws(() => serverPortsAttributes(8011, 0), RangeError);
  });
});

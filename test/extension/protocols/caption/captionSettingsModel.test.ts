// "Start captioning"'s command line (issue 25 point 8): endpoints or a model path (with its GPU groups and TP), the
// model name, --detach; the answer typed when the settings name no server.
import * as assert from 'node:assert/strict';
import { captionCliArgs, captionSettingsSchema, parseServersAnswer, settingsServers } from '../../../../src/extension/protocols/caption/captionSettingsModel';

describe('caption start arguments (issue 25 point 8)', () => {
  const defaults = captionSettingsSchema.parse({});

  it('runs `fpsweep avtime caption ROOT --base-url … --detach` on endpoints', () => {
    const s = captionSettingsSchema.parse({ baseUrls: ['http://127.0.0.1:8011', 'http://127.0.0.1:8012'], model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking' });
    assert.deepEqual(captionCliArgs('/data/videos', settingsServers(s)!, s), [
      '/data/videos',
      '--base-url',
      'http://127.0.0.1:8011,http://127.0.0.1:8012',
      '--model',
      'Qwen/Qwen3-Omni-30B-A3B-Thinking',
      '--detach',
    ]);
  });

  it('runs managed servers from a model path with the GPU groups and TP of the settings', () => {
    const s = captionSettingsSchema.parse({ modelPath: '/models/omni', gpus: '0,1;2,3', tp: 2 });
    assert.deepEqual(captionCliArgs('/v', settingsServers(s)!, s), ['/v', '--model-path', '/models/omni', '--gpus', '0,1;2,3', '--tp', '2', '--detach']);
  });

  it('names no server when the settings name none (the command asks)', () => {
    assert.equal(settingsServers(defaults), null);
  });

  it('reads the typed answer: URLs are endpoints, anything else a model path, a bad URL refused', () => {
    assert.deepEqual(parseServersAnswer(' http://127.0.0.1:8011 , http://127.0.0.1:8012 '), { baseUrls: ['http://127.0.0.1:8011', 'http://127.0.0.1:8012'] });
    assert.deepEqual(parseServersAnswer('/models/omni'), { modelPath: '/models/omni' });
    assert.match((parseServersAnswer('http://127.0.0.1:8011,models') as { error: string }).error, /'models' is not an http\(s\) URL/);
    assert.ok('error' in parseServersAnswer('  '));
  });
});

// The extension's Gemini half (issue 35, point 7), as its UI model (no vscode): "Start captioning" offers the
// backend, the Gemini arguments carry no key (it goes by the environment only), the key's place is SecretStorage, the
// tree and the viewer's picker say which backend made each video, and the command to set the key is declared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CaptionVideoEntry } from '../../../../src/core/protocols/caption/progressTypes';
import { pickerVideos } from '../../../../src/core/protocols/caption/viewerModel';
import {
  BACKEND_PICKS,
  captionSettingsSchema,
  DEFAULT_GEMINI_MODEL,
  GEMINI_KEY_SECRET,
  geminiCliArgs,
  geminiKeyEnv,
  geminiModelDefault,
} from '../../../../src/extension/protocols/caption/captionSettingsModel';
import { captionRootRow } from '../../../../src/extension/protocols/caption/captionTreeRows';
import { videoOptionText } from '../../../../media/src/protocols/caption/viewerText';

const KEY = 'AIzaSyExtension-Secret-012345678';

describe('caption UI: the Gemini backend', () => {
  it('"Start captioning" offers vLLM and Gemini; the Gemini run is the CLI verb with no key in its arguments', () => {
    assert.deepEqual(
      BACKEND_PICKS.map((b) => b.backend),
      ['vllm', 'gemini'],
    );
    const args = geminiCliArgs('/data/videos', ' gemini-2.5-pro ');
    assert.deepEqual(args, ['/data/videos', '--backend', 'gemini', '--model', 'gemini-2.5-pro', '--detach']);
    assert.deepEqual(geminiKeyEnv(KEY), { GEMINI_API_KEY: KEY });
    assert.equal(GEMINI_KEY_SECRET, 'fpsweep.geminiApiKey');
    const s = captionSettingsSchema.parse({});
    assert.equal(geminiModelDefault(s), DEFAULT_GEMINI_MODEL);
    assert.equal(geminiModelDefault({ ...s, model: 'gemini-3.1-pro-preview' }), 'gemini-3.1-pro-preview');
    assert.equal(geminiModelDefault({ ...s, model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking' }), DEFAULT_GEMINI_MODEL);
  });

  it('the tree and the viewer picker say which backend made each video', () => {
    const videos: CaptionVideoEntry[] = [
      { stem: 'a', state: 'completed', clips: 2, clipsDone: 2, reason: null, rank: null, backend: 'gemini', model: 'gemini-2.5-pro', tokens: 900 },
      {
        stem: 'b',
        state: 'failed',
        clips: 1,
        clipsDone: 0,
        reason: 'clip 1: answer blocked: finishReason SAFETY',
        rank: null,
        backend: 'gemini',
        model: 'gemini-2.5-pro',
      },
      { stem: 'c', state: 'completed', clips: 1, clipsDone: 1, reason: null, rank: null },
    ];
    const row = captionRootRow({
      protocol: 'caption',
      root: '/data/videos',
      runId: 'r',
      live: false,
      state: 'failed',
      summary: null,
      groups: [],
      detail: {
        root: '/data/videos',
        total: 3,
        completed: 2,
        running: 0,
        failed: 1,
        pending: 0,
        untracked: [],
        videos,
        ranks: [],
        backends: { gemini: 2, vllm: 1 },
        tokens: { prompt: 800, candidates: 100, total: 900 },
      },
    } as Parameters<typeof captionRootRow>[0]);
    const rows = row.children.flatMap((g) => g.children);
    const describe = (stem: string) => rows.find((r) => r.label === stem)!.description;
    assert.equal(describe('a'), 'gemini gemini-2.5-pro · 2 clips');
    assert.equal(describe('b'), 'gemini gemini-2.5-pro · clip 1: answer blocked: finishReason SAFETY');
    assert.equal(describe('c'), '1 clip', 'an outcome from before names no backend');
    assert.match(row.tooltip!, /backends: gemini 2, vllm 1; tokens 900/);
    const picked = pickerVideos(['a', 'b', 'c'], { videos });
    assert.deepEqual(
      picked.map((v) => videoOptionText(v)),
      ['a — completed [gemini]', 'b — failed [gemini]: clip 1: answer blocked: finishReason SAFETY', 'c — completed'],
    );
  });

  it('declares "Set Gemini API key" (package.json), the way to replace a refused key', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8'));
    assert.ok(pkg.contributes.commands.some((c: { command: string }) => c.command === 'fpsweep.caption.setGeminiKey'));
  });
});

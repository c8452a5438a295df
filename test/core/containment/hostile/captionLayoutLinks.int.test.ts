// Issue 42, point 5, for the caption run type: generated from its layout module (CaptionLayout, with its RunRoot).
// Each path `fpsweep avtime caption` writes (against running servers, with launched stand-in servers, and with the
// Gemini backend) gets a link planted at it before the verb runs: exit 2 naming the link, no stack trace, nothing
// outside changed (a file written whole replaces the link instead). A member added to the layout and not classified
// here fails the first test; a path a clean run writes that no member names fails the next ones.
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { answerOf, startCaptionFake, type CaptionFake } from '../../protocols/caption/captionFake';
import { addVideo, makeClipMedia, type MediaPair } from '../../protocols/caption/videosRoot';
import { FAKE_VLLM, freePortRange, withEnv } from '../../protocols/fp/sweep/helpers';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID } from '../../../../src/core/serving/models/qwen3Omni/counts';
import { startStandinGemini, type StandinGemini } from '../../../../src/standins/gemini/server';
import { clearSecrets } from '../../../../src/core/security/secrets';
import { hostileDir, removeHostileDirs } from './hostileFiles';
import { describeLayoutLinks, type LayoutTable } from './layoutLinks';
import { stopFile } from '../../../../src/core/runner/runRoot';

const STEM = 'v1';
const GEMINI_KEY = 'AIzaSyStandin-Layout-0123456789abcdef';
/** Against running servers, with a launched stand-in vLLM, detached (the worker's log), or through Gemini. */
type Verb = 'caption' | 'launch' | 'detach' | 'gemini';

const LAYOUT: LayoutTable<CaptionLayout, Verb> = {
  root: { readOnly: 'the videos root itself: the user names it, every check starts there' },
  shard: { readOnly: 'not a path: the rank of a sharded run' },
  'runRoot.root': { readOnly: 'the videos root again (the engine half of the layout)' },
  'runRoot.stateDir': { at: (l) => l.runRoot.stateDir, kind: 'dir', verb: 'caption' },
  'runRoot.lockFile': { at: (l) => l.runRoot.lockFile, kind: 'file', verb: 'caption' },
  'runRoot.statusFile': { at: (l) => l.runRoot.statusFile, kind: 'file', verb: 'caption', replaced: true },
  'runRoot.logsDir': { at: (l) => l.runRoot.logsDir, kind: 'dir', verb: 'caption' },
  'runRoot.runnerLog': { at: (l) => l.runRoot.runnerLog, kind: 'file', verb: 'detach' },
  stateBase: { at: (l) => l.stateBase, kind: 'dir', verb: 'caption' },
  videoDir: { readOnly: "a video's folder: the cut's output, an input (the files we write in it are planted below)" },
  rawFile: { at: (l) => l.rawFile(STEM), kind: 'file', verb: 'caption' },
  outcomeFile: { at: (l) => l.outcomeFile(STEM), kind: 'file', verb: 'caption', replaced: true },
  captionsFile: { at: (l) => l.captionsFile(STEM), kind: 'file', verb: 'caption', replaced: true },
  preflightFile: { at: (l) => l.preflightFile, kind: 'file', verb: 'caption', replaced: true },
  vllmLog: { at: (l) => l.vllmLog(0), kind: 'file', verb: 'launch' },
  launchParams: { at: (l) => l.launchParams, kind: 'file', verb: 'launch' },
  serversRecord: { at: (l) => l.serversRecord, kind: 'file', verb: 'launch', replaced: true },
  geminiUploadsDir: { at: (l) => l.geminiUploadsDir, kind: 'dir', verb: 'gemini' },
  clipCaptionsFile: { at: (l) => l.clipCaptionsFile(STEM, 1), kind: 'file', verb: 'gemini', replaced: true },
};

/** The placeholders the pre-flight predicts for the clip (4 frames of 384x384, 1.2 s of audio): it passes. */
const PROMPT_IDS = [1, ...Array(288).fill(OMNI_VIDEO_TOKEN_ID), 2, ...Array(17).fill(OMNI_AUDIO_TOKEN_ID), 3];

let fake: CaptionFake;
let gemini: StandinGemini;
let media: MediaPair;

async function caption(verb: Verb, root: string) {
  const common = ['avtime', 'caption', root, '--tick-ms', '100'];
  if (verb === 'gemini') {
    return withEnv({ GEMINI_API_KEY: GEMINI_KEY, GOOGLE_API_KEY: undefined }, () =>
      runCli([...common, '--backend', 'gemini', '--model', 'gemini-2.5-flash', '--gemini-base-url', gemini.url, '--poll-ms', '50']),
    );
  }
  if (verb === 'launch') {
    const model = path.join(hostileDir('caption-layout-model-'), 'Qwen3-Omni-30B-A3B-Thinking');
    const port = String(await freePortRange(1));
    return withEnv({ VLLM_BIN: FAKE_VLLM }, () => runCli([...common, '--model-path', model, '--gpus', '0', '--base-port', port]));
  }
  return runCli([...common, '--base-url', fake.url, ...(verb === 'detach' ? ['--detach'] : [])]);
}

describeLayoutLinks({
  title: 'hostile videos root: a link at every path `avtime caption` writes (issue 42, point 5, from CaptionLayout)',
  layoutOf: (root) => new CaptionLayout(root),
  table: LAYOUT,
  beyond: { "the engine's stopFile": { at: (l) => stopFile(l.runRoot), kind: 'file', verb: 'caption' } },
  timeoutMs: 120_000,
  setUp: async () => {
    fake = await startCaptionFake((clip) => ({ status: 200, content: answerOf(clip), promptTokenIds: PROMPT_IDS }));
    gemini = await startStandinGemini({ apiKey: GEMINI_KEY });
    media = makeClipMedia(hostileDir('caption-layout-media-'));
  },
  tearDown: async () => {
    await fake?.close();
    await gemini?.close();
    clearSecrets();
    removeHostileDirs();
  },
  freshRoot: async () => {
    const root = hostileDir('caption-layout-');
    addVideo(root, STEM, media, 1);
    return root;
  },
  run: caption,
  cleanRuns: [['caption'], ['launch'], ['gemini']],
});

// What a server's (or the decoder's) words likely mean for a sweep, and what to do: the messages a real run
// meets (vLLM 0.11's wording, see serving/vllmMessages.ts) in Frames × Pixels's terms (its frames, flags and
// context), for the fail-fast stop, the servers-down stop and the pre-flight. The first matching row wins; an
// unknown message still gets a next step. vLLM's messages are tested once, in the engine's table
// (runner/failureAdvice.ts); the sweep gives its own actions and its own rows around them.
import { adviceFrom, engineAdviceRows, type AdviceRow } from '../../../runner/failureAdvice';

/** Its own rows, asked before the engine's: the frame files' path on the server. */
const FRAME_PATH_ROWS: AdviceRow[] = [
  {
    test: (m) => /must be a subpath of `--allowed-local-media-path`/.test(m),
    meaning:
      'the server refuses the frame files: vLLM 0.11 resolves each file:// path (symlinks followed) but compares it ' +
      'with --allowed-local-media-path as given, so a package reached through a symlink is "outside" it',
    action:
      "run on the package's real path (`realpath <package>`), or put the package where no symlink leads to it, " +
      'or give the servers with --endpoints (frames then go as data: URLs)',
  },
  {
    test: (m) => /Cannot load local files without `--allowed-local-media-path`/.test(m),
    meaning: 'the server was started without --allowed-local-media-path, so it reads no file:// frame',
    action: 'restart vLLM with --allowed-local-media-path <package>/.fpsweep/frames, or let fpsweep launch the servers',
  },
];

const FRAME_LIMIT_ROW: AdviceRow = {
  test: (m) => /At most \d+ image\(s\) may be provided/.test(m),
  meaning: "the server's --limit-mm-per-prompt is below the frame counts of the plan",
  action: 'restart vLLM with --limit-mm-per-prompt \'{"image": 1024}\'',
};

const DECODE_ROW: AdviceRow = {
  test: (_m, _s, kind) => kind === 'decode',
  meaning: 'no video could be decoded: ffmpeg is missing, broken or cannot read these files',
  action: 'run `ffmpeg -version` (or $FFMPEG_BIN) and `fpsweep doctor`; try `ffmpeg -i <one video> -f null -`',
};

/** The engine's rows of vLLM's messages in the sweep's words (its flags, its logs), the frame limit after the context. */
const ENGINE_ROWS = engineAdviceRows({
  unauthorized: { action: 'set FPSWEEP_API_KEY to the key the server was started with (--api-key / VLLM_API_KEY)' },
  model: { action: 'start vLLM with the expected --served-model-name, or check that every endpoint serves the same model (`fpsweep doctor`)' },
  context: {
    action:
      'start vLLM with --max-model-len 65536 (the protocol never lowers it); if it is already 65536, the token ' +
      'prediction is off: send logs/preflight.json and the raw records with the report',
  },
  oom: { action: 'lower --max-seqs (MAX_SEQS) or --gpu-util; see logs/vllm_gpu*.log' },
  refused: { action: 'check the endpoint URL and that the server is up (curl <url>/health); for launched servers see logs/vllm_gpu*.log' },
  reset: { action: "see logs/vllm_gpu*.log (launched servers) or the server's own log; `fpsweep doctor` checks the setup" },
  timeout: { action: "check the server's log and load (GET /metrics); lower --workers if it is overloaded" },
  unavailable: { action: 'wait until GET /health answers 200, then run again (the run resumes)' },
}).flatMap((r) => (r.id === 'context' ? [r, FRAME_LIMIT_ROW] : [r]));

const ROWS: AdviceRow[] = [...FRAME_PATH_ROWS, ...ENGINE_ROWS, DECODE_ROW];

/** What a failure likely means for a sweep, and what to do. */
export const fpAdviseFailure = adviceFrom(ROWS, {
  meaning: 'a refusal fpsweep does not know: every request meets it, so the setup (not the data) is the likely cause',
  action: "read the message and the server's log (logs/vllm_gpu*.log for launched servers); `fpsweep doctor` checks the setup",
});

// What a server's (or the decoder's) words likely mean for a sweep, and what to do: the messages a real run
// meets (vLLM 0.11's wording, see serving/vllmMessages.ts) in Frames × Pixels's terms (its frames, flags and
// context), for the fail-fast stop, the servers-down stop and the pre-flight. The first matching row wins; an
// unknown message still gets a next step. The engine's own table (runner/failureAdvice.ts) is the run-type-free one.
import { adviceFrom, type AdviceRow } from '../../../runner/failureAdvice';

const ROWS: AdviceRow[] = [
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
  {
    test: (m, status) => status === 401 || /^Unauthorized\b/.test(m),
    meaning: 'the server wants another API key',
    action: 'set FPSWEEP_API_KEY to the key the server was started with (--api-key / VLLM_API_KEY)',
  },
  {
    test: (m, status) => status === 404 || /The model `[^`]*` does not exist/.test(m),
    meaning: 'the server does not serve the model name the request asks for',
    action: 'start vLLM with the expected --served-model-name, or check that every endpoint serves the same model (`fpsweep doctor`)',
  },
  {
    test: (m, _s, kind) => kind === 'context' || /maximum (model|context) length/.test(m),
    meaning: "the prompts do not fit the server's context window",
    action:
      'start vLLM with --max-model-len 65536 (the protocol never lowers it); if it is already 65536, the token ' +
      'prediction is off: send logs/preflight.json and the raw records with the report',
  },
  {
    test: (m) => /At most \d+ image\(s\) may be provided/.test(m),
    meaning: "the server's --limit-mm-per-prompt is below the frame counts of the plan",
    action: 'restart vLLM with --limit-mm-per-prompt \'{"image": 1024}\'',
  },
  {
    test: (m) => /CUDA out of memory|OutOfMemoryError/.test(m),
    meaning: 'the server ran out of GPU memory',
    action: 'lower --max-seqs (MAX_SEQS) or --gpu-util; see logs/vllm_gpu*.log',
  },
  {
    test: (m) => /ECONNREFUSED|connection refused/i.test(m),
    meaning: "nothing listens at the server's address: it is not running, has crashed, or the URL/port is wrong",
    action: 'check the endpoint URL and that the server is up (curl <url>/health); for launched servers see logs/vllm_gpu*.log',
  },
  {
    test: (m) => /ECONNRESET|socket|aborted|EPIPE|other side closed/i.test(m),
    meaning: 'the server closed connections mid-request: it crashed or was restarted',
    action: "see logs/vllm_gpu*.log (launched servers) or the server's own log; `fpsweep doctor` checks the setup",
  },
  {
    test: (m) => /Timeout|ETIMEDOUT/i.test(m),
    meaning: 'the server did not answer in time: it is hung, overloaded or unreachable',
    action: "check the server's log and load (GET /metrics); lower --workers if it is overloaded",
  },
  {
    test: (m, status) => status === 503 || /Service Unavailable/i.test(m),
    meaning: 'the server says it cannot serve now (starting, overloaded or shutting down)',
    action: 'wait until GET /health answers 200, then run again (the run resumes)',
  },
  {
    test: (_m, _s, kind) => kind === 'decode',
    meaning: 'no video could be decoded: ffmpeg is missing, broken or cannot read these files',
    action: 'run `ffmpeg -version` (or $FFMPEG_BIN) and `fpsweep doctor`; try `ffmpeg -i <one video> -f null -`',
  },
];

/** What a failure likely means for a sweep, and what to do. */
export const fpAdviseFailure = adviceFrom(ROWS, {
  meaning: 'a refusal fpsweep does not know: every request meets it, so the setup (not the data) is the likely cause',
  action: "read the message and the server's log (logs/vllm_gpu*.log for launched servers); `fpsweep doctor` checks the setup",
});

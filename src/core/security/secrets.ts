// The one redactor: every secret in play (hub token, API keys) is registered once, where it is read, and every
// text that can reach a log, a status file, the terminal or the extension's output channel passes `redactSecrets`.
// A secret can come back in another spelling (a URL path or query percent-encodes it, a JSON body escapes it), so each
// spelling is masked, longest first (a secret that contains another is masked whole).

const MIN_SECRET_CHARS = 8; // shorter values ("1", "none") would mask ordinary words

const secrets = new Map<string, string>(); // spelling → mask
/** The spellings longest first, kept sorted as secrets are registered (redactSecrets runs on every log line). */
let longestFirst: [string, string][] = [];

function encoded(encode: (v: string) => string, value: string): string {
  try {
    return encode(value);
  } catch {
    return value; // a lone surrogate cannot be percent-encoded, so it cannot appear so either
  }
}

function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = new Set<string>([value, encoded(encodeURIComponent, value), encoded(encodeURI, value), json]);
  return [...forms].filter((s) => s.length >= MIN_SECRET_CHARS);
}

/** Registers a secret so every later `redactSecrets` masks it; `label` names it in the mask (`<hf-token>`). */
export function registerSecret(value: string | null | undefined, label = 'secret'): void {
  const v = value?.trim();
  if (!v || v.length < MIN_SECRET_CHARS) return;
  for (const s of spellings(v)) secrets.set(s, `<${label}>`);
  longestFirst = [...secrets].sort((a, b) => b[0].length - a[0].length);
}

/** Forgets every registered secret (tests; a process that changes keys registers the new one instead). */
export function clearSecrets(): void {
  secrets.clear();
  longestFirst = [];
}

/** The text with every registered secret, in every spelling, replaced by its mask. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0 || !text) return text;
  let out = text;
  for (const [spelling, mask] of longestFirst) {
    if (out.includes(spelling)) out = out.split(spelling).join(mask);
  }
  return out;
}

/** Environment variables that hold a secret in play: the hub token, the servers' and the judges' API keys. */
export const SECRET_ENV_VARS: Readonly<Record<string, string>> = {
  HF_TOKEN: 'hf-token',
  HUGGING_FACE_HUB_TOKEN: 'hf-token',
  FPSWEEP_API_KEY: 'api-key',
  VLLM_API_KEY: 'api-key',
  OPENAI_API_KEY: 'openai-key',
  GEMINI_API_KEY: 'gemini-key',
  GOOGLE_API_KEY: 'gemini-key',
};

/** Registers every secret the environment holds (a process's start: the CLI, the worker). */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, label] of Object.entries(SECRET_ENV_VARS)) registerSecret(env[name], label);
}

type Write = NodeJS.WriteStream['write'];

/**
 * The terminal's chokepoint: every text written to `streams` (the CLI's and the worker's stdout and stderr; the
 * worker's are runner.log) passes redactSecrets first, whoever writes it. Returns the undo (the CLI in a test's
 * process puts the streams back as it found them).
 */
export function redactStreams(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): () => void {
  const undo = streams.map((stream) => {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : chunk;
      return (write as (...a: unknown[]) => boolean).call(this, typeof text === 'string' ? redactSecrets(text) : text, ...rest);
    } as Write;
    return () => {
      stream.write = write;
    };
  });
  return () => undo.forEach((u) => u());
}

// Where the Hugging Face token comes from, in order: a value handed in by the caller (the
// extension reads it from SecretStorage), HF_TOKEN, the token file huggingface_hub writes
// (HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token). The token itself is only
// ever held in memory: callers print `source`, never the value.
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { registerSecret } from '../../../security/secrets';

export interface ResolvedToken {
  token: string;
  /** Where it came from, safe to print: 'the extension', 'HF_TOKEN', or the token file's path. */
  source: string;
}

export function hfHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HOME) return env.HF_HOME;
  const xdg = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'huggingface');
}

export function tokenFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.HF_TOKEN_PATH || path.join(hfHome(env), 'token');
}

/** Where it is read, the token joins the redactor's secrets: masked in every log, status and terminal line. */
function registered(t: ResolvedToken): ResolvedToken {
  registerSecret(t.token, 'hf-token');
  return t;
}

export async function resolveToken(explicit?: string | null, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedToken | null> {
  if (explicit && explicit.trim()) return registered({ token: explicit.trim(), source: 'the extension' });
  if (env.HF_TOKEN && env.HF_TOKEN.trim()) return registered({ token: env.HF_TOKEN.trim(), source: 'HF_TOKEN' });
  const file = tokenFilePath(env);
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    if (text) return registered({ token: text, source: file });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return null;
}

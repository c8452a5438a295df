// The Gemini key (seed §3: GEMINI_API_KEY, or GOOGLE_API_KEY; never read from files in the repository or the root):
// from the environment only — the extension passes the key it keeps in SecretStorage to the worker the same way.
// Registered with the one redactor where it is read, so no log line, status or error text can carry it.
import { registerSecret } from '../../../security/secrets';

export const GEMINI_KEY_VARS = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

export function geminiKeyFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const v of GEMINI_KEY_VARS) {
    const key = env[v]?.trim();
    if (key) {
      registerSecret(key, 'gemini-key');
      return key;
    }
  }
  return null;
}

export const NO_KEY_WORDS =
  'no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment (https://aistudio.google.com/app/apikey); it is never read from a file';

// The one redactor: every secret in play (hub token, API keys) is registered once, where it is read, and every
// text that can reach a log, a status file, the terminal or the extension's output channel passes `redactSecrets`.
// A secret can come back in another spelling (a URL path or query percent-encodes it, a JSON body escapes it), so each
// spelling is masked, longest first (a secret that contains another is masked whole).

const MIN_SECRET_CHARS = 8; // shorter values ("1", "none") would mask ordinary words

const secrets = new Map<string, string>(); // spelling → mask

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
}

/** Forgets every registered secret (tests; a process that changes keys registers the new one instead). */
export function clearSecrets(): void {
  secrets.clear();
}

/** The text with every registered secret, in every spelling, replaced by its mask. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0 || !text) return text;
  let out = text;
  for (const [spelling, mask] of [...secrets].sort((a, b) => b[0].length - a[0].length)) {
    if (out.includes(spelling)) out = out.split(spelling).join(mask);
  }
  return out;
}

// A vLLM release and the range a run type accepts (its pin). Each protocol names its own pins (FP:
// protocols/fp/vllmPin.ts; AVTime: protocols/avtime/vllmPins.ts); doctor and the servers stage hold a
// server's reported version (`vllm --version`, GET /version) against them here.

export interface VllmPin {
  /** What runs on it, in words: "FP sweep", "AVTime target". */
  runType: string;
  /** The lowest release accepted, "0.18.0". */
  min: string;
  /** The first release no longer accepted ("0.12.0" makes the pin 0.11.x); null = no upper bound. */
  below: string | null;
  /** The release whose files the tool's rules (and the stand-in) follow. */
  rulesFrom: string;
  /** Why this pin, in a few words (a PR, a recipe, the seed). */
  why: string;
}

/** major.minor.patch of a version string ("v0.18.0+cu129", "0.11.1rc1" → [0, 11, 1]); null when there is none. */
export function parseVllmVersion(raw: string): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(raw.trim());
  if (!m) return null;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * Whether `version` lies in the pin: min ≤ version < below. A pre-release or local build counts as its
 * major.minor.patch ("0.18.0rc1" passes ≥ 0.18.0): vLLM's release candidates carry the release's code.
 */
export function pinAccepts(pin: VllmPin, version: string): boolean {
  const v = parseVllmVersion(version);
  if (!v) return false;
  if (compare(v, parseVllmVersion(pin.min)!) < 0) return false;
  return pin.below === null || compare(v, parseVllmVersion(pin.below)!) < 0;
}

/** "0.11.x" for a one-minor pin, "≥ 0.18.0", or "≥ 0.17.0, < 0.20.0". */
export function describePin(pin: VllmPin): string {
  const lo = parseVllmVersion(pin.min)!;
  if (pin.below !== null) {
    const hi = parseVllmVersion(pin.below)!;
    if (lo[2] === 0 && hi[0] === lo[0] && hi[1] === lo[1] + 1 && hi[2] === 0) return `${lo[0]}.${lo[1]}.x`;
    return `≥ ${pin.min}, < ${pin.below}`;
  }
  return `≥ ${pin.min}`;
}

/** The refusal of a server outside its pin: what it reports, what the run type needs and why, what to do. */
export function pinRefusal(pin: VllmPin, version: string | null, where: string, fix: string): string {
  const got = version === null ? `reports no vLLM version (neither GET /version nor \`--version\` answered)` : `reports vLLM ${version}`;
  return `${where} ${got}; the ${pin.runType} needs vLLM ${describePin(pin)} (${pin.why}; its rules follow vLLM ${pin.rulesFrom}). ${fix}`;
}

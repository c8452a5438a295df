// Which ports are the extension's own vLLM servers, so VS Code (Remote-SSH, code-server) neither offers
// nor forwards them. The finalized API of VS Code 1.100 has no port-attributes provider (it is still the
// proposed `portsAttributes` API), so package.json contributes these as a default of
// `remote.portsAttributes`; test/extension/portAttributes.test.ts keeps the two in step.

/** The launcher's first port (protocols/fp/sweep/runOptions.ts basePort) and how many GPUs a host may have (server i on base + i). */
export const DEFAULT_BASE_PORT = 8011;
export const MAX_GPUS = 16;

export interface PortAttributesSetting {
  label: string;
  onAutoForward: 'ignore';
}

/** `remote.portsAttributes` entries for the servers on basePort … basePort + gpus - 1 (a range key). */
export function serverPortsAttributes(basePort = DEFAULT_BASE_PORT, gpus = MAX_GPUS): Record<string, PortAttributesSetting> {
  if (!Number.isInteger(basePort) || !Number.isInteger(gpus) || gpus < 1 || basePort < 1 || basePort + gpus - 1 > 65535) {
    throw new RangeError(`no port range for base ${basePort} and ${gpus} GPU(s)`);
  }
  return { [`${basePort}-${basePort + gpus - 1}`]: { label: 'fpsweep vLLM server', onAutoForward: 'ignore' } };
}

/** Does a `remote.portsAttributes` key ("8011" or "8011-8026") cover this port? */
export function keyCoversPort(key: string, port: number): boolean {
  const m = /^(\d+)(?:-(\d+))?$/.exec(key);
  if (!m) return false;
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  return port >= lo && port <= hi;
}

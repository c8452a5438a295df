// Runs reference.py (scipy/statsmodels under /usr/bin/python3) and compares numbers to 1e-9.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

export const REFERENCE_PY = path.join(__dirname, 'reference.py');
export const PYTHON = '/usr/bin/python3';
export const TOL = 1e-9;

export function pythonReference(args: string[], input?: unknown): any {
  const out = execFileSync(PYTHON, [REFERENCE_PY, ...args], { input: input === undefined ? undefined : JSON.stringify(input), maxBuffer: 64 << 20 });
  return JSON.parse(out.toString('utf8'));
}

export function close(actual: number | null | undefined, expected: number | null | undefined, what: string, tol = TOL): void {
  assert.ok(actual !== null && actual !== undefined && expected !== null && expected !== undefined, `${what}: ${actual} vs ${expected}`);
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected} (|Δ| ${Math.abs(actual - expected)})`);
}

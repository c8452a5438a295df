/** Problems with what the user gave us (a flag, a file, a line): exit status 2, never a stack trace. */
export class InputError extends Error {
  constructor(
    message: string,
    readonly where?: { file: string; line?: number },
  ) {
    super(where ? `${where.file}${where.line !== undefined ? `:${where.line}` : ''}: ${message}` : message);
    this.name = 'InputError';
  }
}

/** A wrong flag or verb: exit status 2 with the usage text. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One reported problem in an input file; the rest of the file still runs. */
export interface LineProblem {
  file: string;
  line: number;
  message: string;
}

export function formatLineProblem(p: LineProblem): string {
  return `${p.file}:${p.line}: ${p.message}`;
}

/** How a command or a worker ends: 0 done, 1 failed, 2 bad usage or input. */
export type ExitCode = 0 | 1 | 2;

/**
 * The user's errors (a flag, a file, a held lock: `InputError` and its subclasses, `UsageError`). Matched by name
 * as well, so an error thrown by another copy of this module (a plug-in's, a bundle's) still counts.
 */
export function isUserError(err: unknown): err is InputError | UsageError {
  if (err instanceof InputError || err instanceof UsageError) return true;
  const name = (err as Error | null)?.name;
  return name === 'InputError' || name === 'UsageError' || name === 'LockHeldError' || name === 'ContainmentError';
}

/** How an error ends a command: the user's errors exit 2 with their message; anything else exits 1 with its stack. */
export function exitFor(err: unknown): { code: 1 | 2; text: string } {
  if (isUserError(err)) return { code: 2, text: err.message };
  return { code: 1, text: (err as Error | null)?.stack ?? String(err) };
}

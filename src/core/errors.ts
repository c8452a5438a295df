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

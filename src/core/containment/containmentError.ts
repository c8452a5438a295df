// The one refusal of the containment module: a path where a run's state belongs that is a link, or that leaves the
// root. An InputError, so the CLI and the worker end with exit 2 and this message, never a stack trace.
import { InputError } from '../errors';

export class ContainmentError extends InputError {
  constructor(
    /** The path refused: the link itself, or the path that leaves the root. */
    readonly refusedPath: string,
    readonly reason: string,
  ) {
    super(
      `${reason}; fpsweep writes, appends, renames and deletes only inside its root and never through a link. ` +
        `Remove it (or use a root that only you can write to) and run again`,
      { file: refusedPath },
    );
    this.name = 'ContainmentError';
  }
}

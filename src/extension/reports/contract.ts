// What a run type's report panels declare (protocols/<id>/reportContract.ts), for the host and the webview.
import type { z } from 'zod';

/** One request: what the webview sends with it and what the host answers. */
export interface Request<Args, Result> {
  args: Args;
  result: Result;
}

/** A report source's kinds (kind → panel title) and the schemas of its own requests ({req, command, args}). */
export interface ReportContract {
  source: string;
  kinds: Readonly<Record<string, string>>;
  requestSchemas: readonly z.ZodObject<z.ZodRawShape, 'strict'>[];
}

// The host's side of the webview's requests (messages.ts types them for both sides): what arrives is checked
// with zod before anything reads it (a webview is a browser page: what it sends is input like any other), and a
// protocol's own requests go to its report source's typed handlers. No vscode here, so tests can load it.
import { z } from 'zod';
import { findingsFlipsArgsSchema } from './findingsMessages';
import type { ProtocolCommand, ProtocolRequests, ReportProtocol, RequestArgs, RequestResult, WebviewRequest } from './messages';

const req = z.number().int().nonnegative();
const name = z.string().min(1).max(512);

/** Every request a webview may send, with its arguments; anything else is refused. */
export const webviewRequestSchema = z.discriminatedUnion('command', [
  z.object({ req, command: z.literal('ready') }).strict(),
  z.object({ req, command: z.literal('getReport') }).strict(),
  z
    .object({
      req,
      command: z.literal('openFile'),
      args: z.object({ file: z.string().min(1).max(4096), line: z.number().int().positive().optional() }).strict(),
    })
    .strict(),
  z.object({ req, command: z.literal('getItem'), args: z.object({ benchmark: name, itemId: name }).strict() }).strict(),
  z
    .object({
      req,
      command: z.literal('avtimeQueries'),
      args: z
        .object({
          direction: z.enum(['t2e', 'e2t', 'e2e']).optional(),
          axis: z.enum(['A', 'V']).optional(),
          video: z.string().max(500).optional(),
          text: z.string().max(500).optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ req, command: z.literal('avtimeQuery'), args: z.object({ queryId: name }).strict() }).strict(),
  z.object({ req, command: z.literal('findingsFlips'), args: findingsFlipsArgsSchema }).strict(),
]) satisfies z.ZodType<WebviewRequest>;

export type CheckedRequest = { ok: true; request: WebviewRequest } | { ok: false; req: number | null; error: string };

/** A message from the webview, checked: the request, or why it is refused (and its number, when it has one to answer). */
export function checkWebviewRequest(raw: unknown): CheckedRequest {
  const r = webviewRequestSchema.safeParse(raw);
  if (r.success) return { ok: true, request: r.data };
  const n = req.safeParse((raw as { req?: unknown } | null)?.req);
  const command = (raw as { command?: unknown } | null)?.command;
  const i = r.error.issues[0];
  const what = typeof command === 'string' ? command : 'request';
  if (i.code === 'invalid_union_discriminator') return { ok: false, req: n.success ? n.data : null, error: `${what}: not a request a report panel answers` };
  const where = i.path.filter((p) => p !== 'args').join('.');
  return { ok: false, req: n.success ? n.data : null, error: `${what}: ${where ? `${where}: ` : ''}${i.message}` };
}

/** One request's handler: its checked arguments, the panel's run (AVTime: its output root), its typed answer. */
export type RequestHandler<C extends ProtocolCommand> = (args: RequestArgs<C>, run: string | undefined) => Promise<RequestResult<C>>;

/** A protocol's handlers: one for each of its requests (ProtocolRequests), none for another protocol's. */
export type RequestHandlers<P extends ReportProtocol> = { [C in keyof ProtocolRequests[P] & ProtocolCommand]: RequestHandler<C> };

/** Answers `m` with the source's handler; a request of another protocol (a webview asking the wrong panel) is refused. */
export async function answerProtocolRequest<C extends ProtocolCommand>(
  handlers: { readonly [K in ProtocolCommand]?: RequestHandler<K> },
  m: { command: C; args: RequestArgs<C> },
  run: string | undefined,
  title: string,
): Promise<RequestResult<C>> {
  const handle: RequestHandler<C> | undefined = handlers[m.command];
  if (!handle) throw new Error(`${m.command}: not a request of the ${title} report`);
  return handle(m.args, run);
}

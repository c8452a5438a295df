// The host's side of the webview's requests (messages.ts types them for both sides): what arrives is checked
// with zod before anything reads it (a webview is a browser page: what it sends is input like any other), and a
// source's own requests go to its typed handlers. The schemas are the panel's own and each run type's report
// contract's (protocols/reportContracts.ts). No vscode here, so tests can load it.
import { z } from 'zod';
import { REPORT_CONTRACTS } from '../protocols/reportContracts';
import type { ProtocolCommand, ProtocolRequests, ReportProtocol, RequestArgs, RequestResult, WebviewRequest } from './messages';

const req = z.number().int().nonnegative();

const PANEL_SCHEMAS = [
  z.object({ req, command: z.literal('ready') }).strict(),
  z.object({ req, command: z.literal('getReport') }).strict(),
  z
    .object({
      req,
      command: z.literal('openFile'),
      args: z.object({ file: z.string().min(1).max(4096), line: z.number().int().positive().optional() }).strict(),
    })
    .strict(),
] as const;

type Schemas = (typeof REPORT_CONTRACTS)[number]['requestSchemas'][number];

/** Every request a webview may send, with its arguments; anything else is refused. */
export const webviewRequestSchema = z.discriminatedUnion('command', [
  ...PANEL_SCHEMAS,
  ...REPORT_CONTRACTS.flatMap((c): readonly Schemas[] => c.requestSchemas),
] as unknown as [(typeof PANEL_SCHEMAS)[number], ...((typeof PANEL_SCHEMAS)[number] | Schemas)[]]) satisfies z.ZodType<WebviewRequest>;

export type CheckedRequest = { ok: true; request: WebviewRequest } | { ok: false; req: number | null; error: string };

/** A message from the webview, checked: the request, or why it is refused (and its number, when it has one to answer). */
export function checkWebviewRequest(raw: unknown): CheckedRequest {
  const r = webviewRequestSchema.safeParse(raw);
  if (r.success) return { ok: true, request: r.data as WebviewRequest };
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

/** A source's handlers: one for each of its requests (ProtocolRequests), none for another source's. */
export type RequestHandlers<P extends ReportProtocol> = { [C in keyof ProtocolRequests[P] & ProtocolCommand]: RequestHandler<C> };

/** Answers `m` with the source's handler; a request of another source (a webview asking the wrong panel) is refused. */
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

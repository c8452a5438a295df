// One clip through Gemini (SPEC-AVTIME-DATA §3b): upload (named by us and put in the ledger first), wait until the
// file is ACTIVE (bounded; FAILED is the clip's failure with Google's words), generateContent with the file and the
// caption prompt, read the answer loosely (normalizeGemini.ts), and delete the uploaded file whatever happened.
// Errors as the API gives them (googleError.ts): 429 waits as RetryInfo says, else backs off; 500/503/504 and lost
// connections back off; each of those spends one of the clip's --retries. 400 (INVALID_ARGUMENT, FAILED_PRECONDITION)
// is final. A refused key ends the clip without failing it: the run stops (geminiJob.ts). A blocked prompt or answer
// fails the clip with its reason; an empty or unreadable answer is asked once more, then fails.
import { randomBytes } from 'node:crypto';
import { redactSecrets } from '../../../security/secrets';
import type { ClipEvent } from '../answer';
import type { ClipSpan } from '../normalize';
import { normalizeGeminiClipEvents, parseGeminiAnswer } from '../normalizeGemini';
import type { GeminiApi, GeminiFileInfo } from './client';
import { addUsage, NO_USAGE, readGeminiReply, type GeminiUsage } from './geminiAnswer';
import { errorAction, googleErrorText, readGoogleError, type GoogleError } from './googleError';
import type { Clock, RpmLimiter } from './rateLimit';
import type { UploadLedger } from './uploadLedger';

export interface GeminiClipContext {
  api: GeminiApi;
  model: string;
  prompt: string;
  retries: number;
  baseDelayMs: number;
  activeTimeoutS: number;
  pollMs: number;
  limiter: RpmLimiter;
  clock: Clock;
  ledger: UploadLedger;
  signal: AbortSignal;
  log(line: string): void;
  /** Each API step a clip starts (`upload`, `files.get`, `generateContent`): the run's progress lines name it. */
  onStep?(key: string, step: string): void;
}

export type ClipResult =
  | { kind: 'ok'; events: ClipEvent[]; content: string; tokens: GeminiUsage }
  | { kind: 'failed'; reason: string; tokens: GeminiUsage }
  /** The key was refused: the run stops; the clip stays to do. */
  | { kind: 'key'; error: GoogleError; tokens: GeminiUsage }
  /** Nothing answers at the endpoint (connection refused, unknown host): the run stops; the clip stays to do. */
  | { kind: 'unreachable'; error: GoogleError; tokens: GeminiUsage }
  /** The run was stopped while the clip waited: it stays to do. */
  | { kind: 'cut'; tokens: GeminiUsage };

const MAX_BACKOFF_MS = 60_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type ClipEndResult = DistributiveOmit<ClipResult, 'tokens'>;

class ClipEnd extends Error {
  constructor(readonly result: ClipEndResult) {
    super('clip ended');
  }
}

/** A Gemini file name of our own (https://ai.google.dev/api/files#File: up to 40 lowercase alphanumerics or dashes). */
export const newFileName = () => `files/fpsweep-${randomBytes(10).toString('hex')}`;

export async function captionClipWithGemini(ctx: GeminiClipContext, clip: { key: string; path: string; span: ClipSpan }): Promise<ClipResult> {
  let tokens = NO_USAGE;
  let spent = 0; // retries spent on errors
  const what = (step: string) => `${clip.key}: ${step}`;

  /** One API call under the error rules: its value, or a ClipEnd. */
  async function call<T>(step: string, fn: () => Promise<T>): Promise<T> {
    for (;;) {
      if (ctx.signal.aborted) throw new ClipEnd({ kind: 'cut' });
      ctx.onStep?.(clip.key, step);
      try {
        return await fn();
      } catch (err) {
        if (ctx.signal.aborted) throw new ClipEnd({ kind: 'cut' });
        const e = readGoogleError(err);
        const action = errorAction(e);
        if (action === 'key') throw new ClipEnd({ kind: 'key', error: e });
        if (action === 'unreachable') throw new ClipEnd({ kind: 'unreachable', error: e });
        if (action === 'final' || spent >= ctx.retries) {
          const budget = action === 'final' ? '' : ` (after ${spent} retries)`;
          throw new ClipEnd({ kind: 'failed', reason: redactSecrets(`${step}: ${googleErrorText(e)}${budget}`) });
        }
        spent++;
        const told = action === 'wait' && e.retryDelayMs !== null;
        const wait = told ? e.retryDelayMs! : Math.min(MAX_BACKOFF_MS, ctx.baseDelayMs * 2 ** (spent - 1));
        ctx.log(redactSecrets(what(`${step}: ${googleErrorText(e)}; retry ${spent}/${ctx.retries} in ${wait} ms${told ? ' (RetryInfo)' : ''}`)));
        await ctx.clock.sleep(wait, ctx.signal).catch(() => undefined);
      }
    }
  }

  async function untilActive(file: GeminiFileInfo): Promise<GeminiFileInfo> {
    const deadline = ctx.clock.now() + ctx.activeTimeoutS * 1000;
    let f = file;
    for (;;) {
      if (f.state === 'ACTIVE') return f;
      if (f.state === 'FAILED') throw new ClipEnd({ kind: 'failed', reason: `upload ${f.name} ended FAILED: ${f.error ?? 'no reason given'}` });
      if (ctx.clock.now() >= deadline)
        throw new ClipEnd({ kind: 'failed', reason: `upload ${f.name} not ACTIVE after ${ctx.activeTimeoutS} s (still ${f.state})` });
      ctx.onStep?.(clip.key, `waiting for ${f.name} to be ACTIVE (${f.state})`);
      await ctx.clock.sleep(ctx.pollMs, ctx.signal).catch(() => undefined);
      f = await call('files.get', () => ctx.api.get(f.name, ctx.signal));
    }
  }

  async function answer(file: GeminiFileInfo): Promise<ClipEndResult> {
    let lastWhy = '';
    for (let ask = 1; ask <= 2; ask++) {
      ctx.onStep?.(clip.key, 'waiting for --max-rpm');
      await ctx.limiter.take(ctx.signal);
      const reply = readGeminiReply((await call('generateContent', () => ctx.api.generate(ctx.model, file, ctx.prompt, ctx.signal))) as object);
      tokens = addUsage(tokens, reply.usage);
      if (reply.kind === 'blocked') return { kind: 'failed', reason: reply.reason };
      if (reply.kind === 'text') {
        const parsed = parseGeminiAnswer(reply.text);
        if (parsed.ok) return { kind: 'ok', events: normalizeGeminiClipEvents(parsed.events, clip.span), content: reply.text };
        lastWhy = `unreadable answer: ${parsed.reason}`;
      } else lastWhy = `empty answer (finishReason ${reply.finishReason ?? 'none'})`;
      if (ask === 1) ctx.log(what(`${lastWhy}; asked once more`));
    }
    return { kind: 'failed', reason: `${lastWhy}, twice` };
  }

  const name = newFileName();
  let uploaded = false;
  try {
    await ctx.ledger.add(name, clip.key);
    const file = await call('upload', () => ctx.api.upload(clip.path, name, clip.key, ctx.signal));
    uploaded = true;
    const result = await answer(await untilActive(file));
    return { ...result, tokens } as ClipResult;
  } catch (err) {
    if (err instanceof ClipEnd) return { ...err.result, tokens } as ClipResult;
    throw err;
  } finally {
    await deleteUpload(ctx, name, uploaded);
  }
}

/** files.delete, then the ledger entry; a file that is not there (never made, or gone) is deleted already. */
export async function deleteUpload(ctx: Pick<GeminiClipContext, 'api' | 'ledger' | 'log'>, name: string, mayExist = true): Promise<boolean> {
  try {
    if (mayExist) await ctx.api.remove(name);
  } catch (err) {
    const e = readGoogleError(err);
    // The API answers a file that does not exist (any more) with 403 PERMISSION_DENIED "…or it may not exist", or 404.
    if (e.httpStatus !== 404 && e.httpStatus !== 403) {
      ctx.log(redactSecrets(`files.delete ${name}: ${googleErrorText(e)}; kept in the ledger for the next run`));
      return false;
    }
  }
  await ctx.ledger.remove(name);
  return true;
}

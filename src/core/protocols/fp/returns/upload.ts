// Upload of the returns (seed §8) with @huggingface/hub: one commit that adds
// returns/<tarball> and returns/<stem>.sha256 to the dataset repo. `useXet: false` keeps to the
// LFS protocol (basic or multipart, as the hub decides); the library retries nothing, so its
// fetch is ours (retryFetch.ts). The token is only passed to the library, never printed: every
// message that could echo a request goes through the redactor (security/secrets.ts; resolveToken registered it).
import { constants as C, existsSync, promises as fs, openAsBlob } from 'node:fs';
import { ContainmentError } from '../../../containment/rootFs';
import { notOurs } from '../../../containment/dirHandle';
import * as path from 'node:path';
import { commitIter, whoAmI, HubApiError, type CommitOutput } from '@huggingface/hub';
import { makeRetryingFetch, type RetryOptions } from './retryFetch';
import { redactSecrets } from '../../../security/secrets';
import { ProgressMeter, type ProgressListener } from '../prepare/progressMeter';

export const DEFAULT_REPO = 'GMLRVigil/BenchCheck-FramesPixels';
export const DEFAULT_HUB_URL = 'https://huggingface.co';

export interface UploadFile {
  /** File on disk. */
  localPath: string;
  /** Path in the repo, e.g. returns/fp_returns_host_20260101.tar.gz. */
  pathInRepo: string;
}

export interface UploadOptions {
  token: string;
  repo?: string;
  hubUrl?: string;
  files: UploadFile[];
  retry?: Omit<RetryOptions, 'onResponse'>;
  onProgress?: ProgressListener;
  /** Phase changes and retries, one human line each (no token in them). */
  onMessage?: (line: string) => void;
  commitTitle?: string;
}

export interface UploadResult {
  repo: string;
  hubUrl: string;
  commitOid: string | null;
  commitUrl: string | null;
  files: Array<{ pathInRepo: string; bytes: number }>;
  bytes: number;
  retries: number;
  seconds: number;
  user: string;
}

/** Why an upload failed, in words a user can act on. `kind` lets callers pick an exit path. */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly kind: 'token_invalid' | 'token_read_only' | 'forbidden' | 'token_format' | 'failed',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

interface Identity {
  name: string;
  orgs: string[];
  role: string | null;
}

async function identify(token: string, hubUrl: string, fetchFn: typeof fetch): Promise<Identity> {
  try {
    const me = await whoAmI({ accessToken: token, hubUrl, fetch: fetchFn });
    const orgs = 'orgs' in me && Array.isArray(me.orgs) ? me.orgs.map((o) => o.name) : [];
    return { name: me.name, orgs, role: me.auth?.accessToken?.role ?? null };
  } catch (err) {
    throw classify(err, null, '');
  }
}

function classify(err: unknown, who: Identity | null, repo: string): UploadError {
  if (err instanceof UploadError) return err;
  if (err instanceof TypeError && /must start with 'hf_'/.test(err.message)) {
    return new UploadError(
      'the Hugging Face token does not look like one (it must start with "hf_"); copy it again from https://huggingface.co/settings/tokens',
      'token_format',
    );
  }
  if (err instanceof HubApiError) {
    const detail = redactSecrets(err.message);
    if (err.statusCode === 401) {
      return new UploadError(
        `the hub refused the token (401): it is invalid, revoked or expired. ` +
          `Make a new token with write access at https://huggingface.co/settings/tokens. (${detail})`,
        'token_invalid',
        401,
      );
    }
    if (err.statusCode === 403) {
      const ns = repo.split('/')[0];
      let why: string;
      if (who && who.role === 'read') why = `the token of ${who.name} is read-only: it is missing the write scope`;
      else if (who && ns && ns !== who.name && !who.orgs.includes(ns))
        why = `${who.name} is not a member of the organisation '${ns}' (ask for an invitation with write access)`;
      else if (who && who.role === 'fineGrained')
        why = `the fine-grained token of ${who.name} does not grant write access to ${repo} (add "write" on that repo or org to the token)`;
      else why = `the token${who ? ` of ${who.name}` : ''} has no write access to ${repo}`;
      return new UploadError(`the hub refused the upload (403): ${why}. (${detail})`, 'forbidden', 403);
    }
    return new UploadError(`the hub answered ${err.statusCode}: ${detail}`, 'failed', err.statusCode);
  }
  return new UploadError(redactSecrets((err as Error)?.message ?? String(err)), 'failed');
}

export async function uploadReturns(opts: UploadOptions): Promise<UploadResult> {
  const started = Date.now();
  // Each file opened once, without following a link, and checked from its descriptor; what is sent is read from that
  // descriptor (/proc/self/fd), so a file swapped for a link after the check is not what leaves the host (issue 42).
  const opened: fs.FileHandle[] = [];
  try {
    for (const f of opts.files) opened.push(await openOwn(f.localPath));
    return await upload(opts, opened, started);
  } finally {
    await Promise.all(opened.map((fh) => fh.close()));
  }
}

const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** `file` opened O_NOFOLLOW, a plain file with one name of our uid (fstat), else refused with its path. */
async function openOwn(file: string): Promise<fs.FileHandle> {
  const fh = await fs.open(file, C.O_RDONLY | (C.O_NOFOLLOW ?? 0)).catch((err: unknown) => {
    throw (err as NodeJS.ErrnoException).code === 'ELOOP' ? new ContainmentError(file, 'is a symbolic link: not uploaded') : err;
  });
  const why = notOurs(await fh.stat());
  if (why) {
    await fh.close();
    throw new ContainmentError(file, `${why}: not uploaded`);
  }
  return fh;
}

async function upload(opts: UploadOptions, opened: fs.FileHandle[], started: number): Promise<UploadResult> {
  const repo = opts.repo ?? DEFAULT_REPO;
  const hubUrl = (opts.hubUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const say = opts.onMessage ?? (() => undefined);
  const sizes = await Promise.all(opened.map(async (fh) => (await fh.stat()).size));
  const total = sizes.reduce((a, b) => a + b, 0);
  const meter = new ProgressMeter(`uploading to ${repo}`, total, opts.onProgress);
  const { fetch: retrying, stats } = makeRetryingFetch({
    ...opts.retry,
    onRetry: (info) => {
      say(`retry ${info.attempt} of ${info.method} ${info.url}: ${info.reason}; waiting ${(info.delayMs / 1000).toFixed(1)} s`);
      opts.retry?.onRetry?.(info);
    },
    // Bytes count once a PUT to LFS storage (a whole file or one part) has been accepted.
    onResponse: (info) => {
      if (info.method === 'PUT') meter.add(info.bodyBytes);
    },
  });

  const who = await identify(opts.token, hubUrl, retrying);
  if (who.role === 'read') {
    throw new UploadError(
      `the token of ${who.name} is read-only: it is missing the write scope. Make a token with write access at https://huggingface.co/settings/tokens`,
      'token_read_only',
    );
  }
  say(`authenticated as ${who.name}${who.role ? ` (token role: ${who.role})` : ''}`);

  const operations = await Promise.all(
    opts.files.map(async (f, i) => ({
      operation: 'addOrUpdate' as const,
      path: f.pathInRepo,
      content: await openAsBlob(PROC_FD ? `/proc/self/fd/${opened[i].fd}` : f.localPath),
    })),
  );
  let output: CommitOutput | undefined;
  try {
    const it = commitIter({
      repo: { type: 'dataset', name: repo },
      accessToken: opts.token,
      hubUrl,
      operations,
      title: opts.commitTitle ?? `Add ${opts.files.map((f) => path.posix.basename(f.pathInRepo)).join(', ')}`,
      useXet: false,
      fetch: retrying,
    });
    for (;;) {
      const step = await it.next();
      if (step.done) {
        output = step.value;
        break;
      }
      if (step.value.event === 'phase') say(`phase: ${step.value.phase}`);
    }
  } catch (err) {
    throw classify(err, who, repo);
  }
  // Regular (non-LFS) files travel inside the commit call; count what was not counted by PUTs.
  const left = total - meter.snapshot().doneBytes;
  if (left > 0) meter.add(left);
  meter.finish();
  return {
    repo,
    hubUrl,
    commitOid: output?.commit.oid ?? null,
    commitUrl: output?.commit.url ?? null,
    files: opts.files.map((f, i) => ({ pathInRepo: f.pathInRepo, bytes: sizes[i] })),
    bytes: total,
    retries: stats.retries,
    seconds: (Date.now() - started) / 1000,
    user: who.name,
  };
}

// `fpsweep return [--upload]` as one function the CLI and the extension share: make the tarball
// and its .sha256, then (if asked) upload both. Without a token the files stay ready for any
// transfer and this is not a failure (seed §8). The summary is one line with the numbers.
import * as path from 'node:path';
import { isUserError } from '../../../errors';
import { ContainmentError, resolveInside } from '../../../containment/rootFs';
import { makeReturnsTarball, type TarballResult } from './tarball';
import { resolveToken, tokenFilePath } from './token';
import { uploadReturns, UploadError, DEFAULT_REPO, DEFAULT_HUB_URL, type UploadResult } from './upload';
import type { RetryOptions } from './retryFetch';
import { formatBytes } from '../prepare/progressMeter';
import type { ProgressListener } from '../prepare/progressMeter';

export interface ReturnOptions {
  packageDir: string;
  upload: boolean;
  repo?: string;
  hubUrl?: string;
  /** A token handed in by the caller (the extension's SecretStorage); never written anywhere. */
  token?: string | null;
  env?: NodeJS.ProcessEnv;
  hostname?: string;
  date?: Date;
  retry?: Omit<RetryOptions, 'onResponse'>;
  onProgress?: ProgressListener;
  onMessage?: (line: string) => void;
}

export type UploadOutcome =
  | { status: 'not_requested' }
  | { status: 'no_token'; message: string }
  | { status: 'uploaded'; result: UploadResult }
  | { status: 'failed'; error: UploadError };

export interface ReturnOutcome {
  tarball: TarballResult;
  upload: UploadOutcome;
  /** The last line to print: what happened, in numbers. */
  summary: string;
  /** 0 done (uploaded, not requested, or no token), 1 the upload failed. */
  exitCode: 0 | 1;
}

export async function makeReturns(opts: ReturnOptions): Promise<ReturnOutcome> {
  const env = opts.env ?? process.env;
  const say = opts.onMessage ?? (() => undefined);
  const tarball = await makeReturnsTarball(opts.packageDir, { hostname: opts.hostname, date: opts.date, onProgress: opts.onProgress });
  const made =
    `${tarball.names.tarball} (${formatBytes(tarball.bytes)}, ${tarball.files} files, ` +
    `sha256 ${tarball.sha256.slice(0, 12)}…) and ${path.basename(tarball.sha256Path)}`;
  say(`wrote ${made} in ${path.dirname(tarball.tarballPath)}`);
  if (!opts.upload) {
    return {
      tarball,
      upload: { status: 'not_requested' },
      exitCode: 0,
      summary: `made ${made}; not uploaded (add --upload to push them to ${opts.repo ?? DEFAULT_REPO})`,
    };
  }
  const token = await resolveToken(opts.token, env);
  if (!token) {
    const message =
      `no Hugging Face token (set HF_TOKEN, run \`huggingface-cli login\` to write ${tokenFilePath(env)}, ` +
      `or store one in the extension): nothing uploaded`;
    return {
      tarball,
      upload: { status: 'no_token', message },
      exitCode: 0,
      summary:
        `uploaded 0 of 2 files: ${message}; ` +
        `${tarball.names.tarball} (${tarball.bytes} bytes) and ${path.basename(tarball.sha256Path)} ` +
        `are ready in ${path.dirname(tarball.tarballPath)} for any file transfer`,
    };
  }
  say(`token from ${token.source}`);
  const repo = opts.repo ?? DEFAULT_REPO;
  // What is uploaded is read through the containment rules (issue 42): our own files, no link on their path.
  for (const f of [tarball.tarballPath, tarball.sha256Path]) await checkOwnFile(path.dirname(tarball.tarballPath), f);
  try {
    const result = await uploadReturns({
      token: token.token,
      repo,
      hubUrl: opts.hubUrl ?? DEFAULT_HUB_URL,
      files: [
        { localPath: tarball.tarballPath, pathInRepo: `returns/${tarball.names.tarball}` },
        { localPath: tarball.sha256Path, pathInRepo: `returns/${tarball.names.hubSha256}` },
      ],
      retry: opts.retry,
      onProgress: opts.onProgress,
      onMessage: say,
    });
    return {
      tarball,
      upload: { status: 'uploaded', result },
      exitCode: 0,
      summary:
        `uploaded 2 of 2 files (${result.bytes} bytes) to datasets/${repo} under returns/ in ${result.seconds.toFixed(1)} s ` +
        `with ${result.retries} retr${result.retries === 1 ? 'y' : 'ies'}; commit ${result.commitOid ?? '?'}`,
    };
  } catch (err) {
    if (isUserError(err)) throw err; // a link or a second name at what would leave the host: exit 2, the path named
    const error = err instanceof UploadError ? err : new UploadError((err as Error).message, 'failed');
    return {
      tarball,
      upload: { status: 'failed', error },
      exitCode: 1,
      summary:
        `uploaded 0 of 2 files: ${error.message}; ` +
        `${tarball.names.tarball} and ${path.basename(tarball.sha256Path)} are ready in ${path.dirname(tarball.tarballPath)} for any file transfer`,
    };
  }
}

/** `file` under `root`, reached without a link, a plain file with one name: else refused with its path. */
async function checkOwnFile(root: string, file: string): Promise<void> {
  const inside = await resolveInside(root, file);
  const st = inside.leaf;
  if (!st || !st.isFile()) throw new ContainmentError(file, 'is not a plain file: not uploaded');
  if (st.nlink > 1) throw new ContainmentError(file, 'has another name (a hard link): not uploaded');
}

// A stand-in for the Gemini API on 127.0.0.1, speaking what @google/genai 2.32 sends (read in
// node_modules/@google/genai/dist/node/index.cjs) and answering as Google's reference says:
//   POST   /upload/v1beta/files                 resumable start (https://ai.google.dev/api/files, media.upload; the
//          headers X-Goog-Upload-Protocol: resumable, -Command: start, -Header-Content-Length, -Header-Content-Type
//          as Files.fetchUploadUrl sends them); body {file: {name?, displayName?, mimeType, sizeBytes}}; answers
//          X-Goog-Upload-URL (the SDK keeps its path and query, and puts its own base URL's host in front)
//   POST   /upload/v1beta/files?upload_id=ID    a chunk (X-Goog-Upload-Command: "upload" | "upload, finalize",
//          X-Goog-Upload-Offset: the bytes before it, as NodeUploader.uploadFileFromPathInternal sends 8 MiB chunks);
//          answers X-Goog-Upload-Status: active, or final with {file: File}
//   GET    /v1beta/files/{id}                   files.get → File (https://ai.google.dev/api/files#File: state
//          PROCESSING → ACTIVE | FAILED, `error` a Status when FAILED)
//   DELETE /v1beta/files/{id}                   files.delete → {}
//   GET    /v1beta/files                        files.list → {files: [...]}
//   POST   /v1beta/models/{model}:generateContent  (https://ai.google.dev/api/generate-content) → candidates,
//          finishReason, promptFeedback.blockReason, usageMetadata; a file used before ACTIVE is 400
//          FAILED_PRECONDITION (SPEC-AVTIME-DATA §3b)
// The key is `x-goog-api-key` (the SDK's header) or `?key=`; a wrong one is 400 API_KEY_INVALID (googleErrors.ts).
// Faults per file by displayName (faults.ts). Requests are logged without headers or bodies: the key never is.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { badKey, GoogleHttpError, invalid, notActive, notFound, overloaded, rateLimited } from './googleErrors';
import type { ClipFaults } from './faults';
import { standinAnswer, standinUsage } from './answer';

export interface StandinGeminiOptions {
  port?: number;
  /** The one key it accepts. */
  apiKey: string;
  faults?: (displayName: string) => ClipFaults;
}

export interface GeminiRequestLog {
  method: string;
  path: string;
  status: number;
  displayName: string | null;
}

interface StoredFile {
  name: string;
  displayName: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  createTime: string;
  gets: number;
  state: 'PROCESSING' | 'ACTIVE' | 'FAILED';
}

interface PendingUpload {
  file: Omit<StoredFile, 'sha256' | 'state' | 'gets'>;
  /** The bytes are hashed as they come, not kept: a test may upload a big clip. */
  hash: Hash;
  offset: number;
}

export interface StandinGemini {
  url: string;
  requests: GeminiRequestLog[];
  /** Files uploaded and not deleted, by name. */
  files: Map<string, StoredFile>;
  /** Every file name ever created, and each one deleted. */
  created: string[];
  deleted: string[];
  /** generateContent calls per displayName. */
  asked: Map<string, number>;
  /** The text parts of the last generateContent per displayName (the prompt as sent). */
  prompts: Map<string, string>;
  /** Tokens answered in usageMetadata, summed. */
  tokensAnswered: { prompt: number; candidates: number; total: number };
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(buf: Buffer): any {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw invalid('Invalid JSON payload received.');
  }
}

/** https://ai.google.dev/api/files#File: the name's id is up to 40 lowercase alphanumerics or dashes, not starting or ending with a dash. */
const FILE_ID = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

export async function startStandinGemini(opts: StandinGeminiOptions): Promise<StandinGemini> {
  const faultsOf: (displayName: string) => ClipFaults = opts.faults ?? (() => ({}));
  const files = new Map<string, StoredFile>();
  const uploads = new Map<string, PendingUpload>();
  const requests: GeminiRequestLog[] = [];
  const created: string[] = [];
  const deleted: string[] = [];
  const asked = new Map<string, number>();
  const prompts = new Map<string, string>();
  const held = new Set<http.ServerResponse>();
  const tokensAnswered = { prompt: 0, candidates: 0, total: 0 };
  let base = '';

  const fileResource = (f: StoredFile) => ({
    name: f.name,
    displayName: f.displayName,
    mimeType: f.mimeType,
    sizeBytes: String(f.sizeBytes),
    createTime: f.createTime,
    updateTime: f.createTime,
    expirationTime: new Date(Date.parse(f.createTime) + 48 * 3600_000).toISOString(), // files are kept 48 h
    sha256Hash: Buffer.from(f.sha256, 'hex').toString('base64'),
    uri: `${base}/v1beta/${f.name}`,
    state: f.state,
    source: 'UPLOADED',
    ...(f.state === 'FAILED' ? { error: { code: 3, message: 'The video could not be processed.' } } : {}),
  });

  function checkKey(req: http.IncomingMessage, url: URL): void {
    const key = req.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (key !== opts.apiKey) throw badKey();
  }

  function startUpload(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): string | null {
    if (req.headers['x-goog-upload-protocol'] !== 'resumable' || req.headers['x-goog-upload-command'] !== 'start')
      throw invalid('Expected X-Goog-Upload-Protocol: resumable and X-Goog-Upload-Command: start.');
    const size = Number(req.headers['x-goog-upload-header-content-length']);
    if (!Number.isInteger(size) || size < 0) throw invalid('X-Goog-Upload-Header-Content-Length is missing or not a byte count.');
    const meta = (json(body)?.file ?? {}) as { name?: string; displayName?: string; mimeType?: string };
    let name = meta.name ?? `files/${randomBytes(6).toString('hex')}`;
    const id = name.replace(/^files\//, '');
    if (!FILE_ID.test(id)) throw invalid(`Invalid file name ${name}: up to 40 lowercase letters, digits or dashes, not starting or ending with a dash.`);
    if (files.has(name) || [...uploads.values()].some((u) => u.file.name === name))
      throw new GoogleHttpError(409, 'ALREADY_EXISTS', `File ${name} already exists.`);
    name = `files/${id}`;
    const mimeType = meta.mimeType ?? String(req.headers['x-goog-upload-header-content-type'] ?? '');
    const uploadId = randomBytes(12).toString('hex');
    const displayName = meta.displayName ?? '';
    uploads.set(uploadId, {
      file: { name, displayName, mimeType, sizeBytes: size, createTime: new Date().toISOString() },
      hash: createHash('sha256'),
      offset: 0,
    });
    res.setHeader('X-Goog-Upload-URL', `${base}/upload/v1beta/files?upload_id=${uploadId}&upload_protocol=resumable`);
    res.setHeader('X-Goog-Upload-Status', 'active');
    res.setHeader('content-type', 'application/json');
    res.end('');
    return displayName;
  }

  function uploadChunk(req: http.IncomingMessage, url: URL, body: Buffer, res: http.ServerResponse): string | null {
    const up = uploads.get(url.searchParams.get('upload_id') ?? '');
    if (!up) throw notFound('Upload');
    const command = String(req.headers['x-goog-upload-command'] ?? '');
    const offset = Number(req.headers['x-goog-upload-offset']);
    if (offset !== up.offset) throw invalid(`X-Goog-Upload-Offset ${offset} is not the ${up.offset} bytes received so far.`);
    up.hash.update(body);
    up.offset += body.length;
    const commands = command.split(',').map((c) => c.trim());
    if (!commands.includes('upload')) throw invalid(`Unknown X-Goog-Upload-Command ${command}.`);
    if (!commands.includes('finalize')) {
      res.setHeader('X-Goog-Upload-Status', 'active');
      res.end('');
      return up.file.displayName;
    }
    if (up.offset !== up.file.sizeBytes) throw invalid(`Finalized after ${up.offset} bytes; the start announced ${up.file.sizeBytes}.`);
    uploads.delete(url.searchParams.get('upload_id')!);
    const stored: StoredFile = { ...up.file, sha256: up.hash.digest('hex'), state: 'PROCESSING', gets: 0 };
    files.set(stored.name, stored);
    created.push(stored.name);
    res.setHeader('X-Goog-Upload-Status', 'final');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ file: fileResource(stored) }));
    return stored.displayName;
  }

  function getFile(name: string): StoredFile {
    const f = files.get(name);
    if (!f)
      throw new GoogleHttpError(403, 'PERMISSION_DENIED', `You do not have permission to access the File ${name.replace(/^files\//, '')} or it may not exist.`);
    return f;
  }

  /** PROCESSING until the file's get count says ACTIVE (or forever, or FAILED), by its faults. */
  function advance(f: StoredFile): void {
    if (f.state !== 'PROCESSING') return;
    f.gets++;
    const faults = faultsOf(f.displayName);
    if (faults.processing === 'stuck') return;
    if (f.gets >= (faults.activeAfterGets ?? 1)) f.state = faults.processing === 'failed' ? 'FAILED' : 'ACTIVE';
  }

  function generate(model: string, body: Buffer, res: http.ServerResponse): string | null {
    const req = json(body) as { contents?: { parts?: { text?: string; fileData?: { fileUri?: string } }[] }[] };
    const parts = req.contents?.flatMap((c) => c.parts ?? []) ?? [];
    const fileUris = parts.map((p) => p.fileData?.fileUri).filter((u): u is string => typeof u === 'string');
    if (parts.length === 0) throw invalid('* GenerateContentRequest.contents: contents is not specified');
    const stored = fileUris.map((u) => {
      const name = u.replace(/^.*\/v1beta\//, '');
      const f = files.get(name);
      if (!f)
        throw new GoogleHttpError(
          403,
          'PERMISSION_DENIED',
          `You do not have permission to access the File ${name.replace(/^files\//, '')} or it may not exist.`,
        );
      if (f.state !== 'ACTIVE') throw notActive(f.name);
      return f;
    });
    const displayName = stored[0]?.displayName ?? '';
    const n = (asked.get(displayName) ?? 0) + 1;
    asked.set(displayName, n);
    const faults = faultsOf(displayName);
    if (faults.hold) {
      held.add(res);
      return displayName;
    }
    if (n <= (faults.rateLimited ?? 0)) throw rateLimited(faults.retryDelay);
    const afterRate = n - (faults.rateLimited ?? 0);
    if (afterRate <= (faults.unavailable ?? 0)) throw overloaded();
    if (afterRate - (faults.unavailable ?? 0) <= (faults.invalidArgument ?? 0)) throw invalid('Request contains an invalid argument.');
    const answered = afterRate - (faults.unavailable ?? 0) - (faults.invalidArgument ?? 0);
    const promptText = parts.map((p) => p.text ?? '').join('');
    prompts.set(displayName, promptText);
    const out = standinAnswer(model, displayName, faults, answered);
    const usage = standinUsage(promptText, stored.length, out.text);
    tokensAnswered.prompt += usage.promptTokenCount;
    tokensAnswered.candidates += usage.candidatesTokenCount;
    tokensAnswered.total += usage.totalTokenCount;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ...out.body, usageMetadata: usage, modelVersion: model, responseId: randomBytes(8).toString('hex') }));
    return displayName;
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<string | null> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    checkKey(req, url);
    const p = url.pathname;
    if (req.method === 'POST' && p === '/upload/v1beta/files')
      return url.searchParams.has('upload_id') ? uploadChunk(req, url, body, res) : startUpload(req, body, res);
    const file = /^\/v1beta\/(files\/[^/:]+)$/.exec(p);
    if (file && req.method === 'GET') {
      const f = getFile(file[1]);
      advance(f);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(fileResource(f)));
      return f.displayName;
    }
    if (file && req.method === 'DELETE') {
      const f = getFile(file[1]);
      files.delete(f.name);
      deleted.push(f.name);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
      return f.displayName;
    }
    if (req.method === 'GET' && p === '/v1beta/files') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ files: [...files.values()].map(fileResource) }));
      return null;
    }
    const gen = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(p);
    if (gen && req.method === 'POST') return generate(decodeURIComponent(gen[1]), body, res);
    throw notFound(`${req.method} ${p}`);
  }

  const server = http.createServer((req, res) => {
    const log = (status: number, displayName: string | null) =>
      requests.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0], status, displayName });
    route(req, res).then(
      (displayName) => log(res.statusCode, displayName),
      (err: unknown) => {
        const e = err instanceof GoogleHttpError ? err : new GoogleHttpError(500, 'INTERNAL', `stand-in: ${(err as Error)?.message ?? String(err)}`);
        if (!res.headersSent) {
          res.writeHead(e.code, { 'content-type': 'application/json; charset=UTF-8' });
          res.end(e.body());
        }
        log(e.code, null);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    files,
    created,
    deleted,
    asked,
    prompts,
    tokensAnswered,
    async close() {
      for (const r of held) r.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

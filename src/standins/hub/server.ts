// A stand-in for the Hugging Face Hub, on 127.0.0.1, speaking exactly what @huggingface/hub's
// commit path (commitIter with useXet: false, read in node_modules/@huggingface/hub/dist) and
// whoAmI call for a dataset repo:
//   GET  /api/whoami-v2
//   POST /api/datasets/{ns}/{name}/preupload/{rev}       → uploadMode lfs | regular per file
//   POST /datasets/{ns}/{name}.git/info/lfs/objects/batch → basic href, or multipart: header
//        {chunk_size, "1": url, "2": url, …} with href = the completion URL
//   PUT  /_lfs/upload/{oid}          basic upload; bytes checked against the sha256 oid
//   PUT  /_lfs/part/{oid}/{n}        one part; answers an ETag
//   POST /_lfs/complete/{oid}        {oid, parts: [{partNumber, etag}]}; assembles + checks sha256
//   POST /api/datasets/{ns}/{name}/commit/{rev}            ndjson: header, lfsFile, file, deletedFile
// It keeps objects and committed files in memory (test-sized), answers 401 for an unknown token
// and 403 for a token without write access, and can fail chosen requests once (a part, a call)
// so that the client's retries are exercised. Requests are logged without their headers.
import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HubTokenInfo {
  user: string;
  role: 'read' | 'write' | 'fineGrained';
  orgs?: string[];
  /** For fineGrained tokens: repos ("ns/name") the token may write. */
  writeRepos?: string[];
}

export interface FailOnce {
  method: string;
  /** Matched against the path (no query): a prefix, e.g. '/_lfs/part/' or '/api/datasets/'. */
  pathIncludes: string;
  status: number;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface StandinHubOptions {
  port?: number;
  tokens: Record<string, HubTokenInfo>;
  /** Files at least this big are uploaded multipart (the real hub decides this too). */
  multipartThreshold?: number;
  chunkSize?: number;
  /** Files larger than this, or whose sample holds a NUL byte, go to LFS (hub: 10 MB + binary). */
  regularMaxBytes?: number;
  /** Part numbers whose first PUT answers 500 (each fails once; the retry must succeed). */
  failPartOnce?: number[];
  failOnce?: FailOnce[];
  /**
   * Hostile hub (issue 33, attack 6): the LFS batch answer's basic upload href carries the caller's token in its
   * path, `/_lfs/upload/<token>/<oid>`. No real hub does this (presigned URLs sign in the query); it is here so the
   * client's messages about that URL are proven to mask the token wherever a server puts it.
   */
  tokenInUploadPath?: boolean;
}

export interface HubRequestLog {
  method: string;
  path: string;
  status: number;
  authorized: boolean;
}

export interface CommittedFile {
  content: Buffer;
  viaLfs: boolean;
  commitOid: string;
}

export interface StandinHub {
  url: string;
  close(): Promise<void>;
  /** Committed files of a repo ("ns/name"), by path in the repo. */
  files(repo: string): Map<string, CommittedFile>;
  requests: HubRequestLog[];
  /** How each LFS object was transferred. */
  transfers: Map<string, 'basic' | 'multipart'>;
  commits: Array<{ repo: string; oid: string; summary: string; paths: string[] }>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: http.IncomingMessage, limit = 4 * 1024 ** 3): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > limit) reject(new HttpError(413, 'body too large'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

function parseJson(buf: Buffer, what: string): any {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    throw new HttpError(400, `${what}: body is not JSON`);
  }
}

const OID = /^[0-9a-f]{64}$/;

export async function startStandinHub(opts: StandinHubOptions): Promise<StandinHub> {
  const multipartThreshold = opts.multipartThreshold ?? 20 * 1024 * 1024;
  const chunkSize = opts.chunkSize ?? 8 * 1024 * 1024;
  const regularMax = opts.regularMaxBytes ?? 10 * 1024 * 1024;
  const failParts = new Set(opts.failPartOnce ?? []);
  const failOnce = (opts.failOnce ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
  const objects = new Map<string, Buffer>();
  const pending = new Map<string, { size: number; parts: Map<number, { data: Buffer; etag: string }> }>();
  const repos = new Map<string, Map<string, CommittedFile>>();
  const requests: HubRequestLog[] = [];
  const transfers = new Map<string, 'basic' | 'multipart'>();
  const commits: StandinHub['commits'] = [];
  let base = '';

  function tokenOf(req: http.IncomingMessage): { token: string; info: HubTokenInfo } | null {
    const h = req.headers.authorization;
    if (!h || !h.startsWith('Bearer ')) return null;
    const token = h.slice('Bearer '.length);
    const info = opts.tokens[token];
    return info ? { token, info } : null;
  }

  function requireAuth(req: http.IncomingMessage): HubTokenInfo {
    const t = tokenOf(req);
    if (!t) throw new HttpError(401, 'Invalid credentials in Authorization header');
    return t.info;
  }

  function requireWrite(req: http.IncomingMessage, repo: string): void {
    const info = requireAuth(req);
    const ns = repo.split('/')[0];
    const member = ns === info.user || (info.orgs ?? []).includes(ns);
    if (info.role === 'read') throw new HttpError(403, 'You have read access but not the required permissions for this operation.');
    if (!member) throw new HttpError(403, `You don't have the rights to create a commit in ${repo}: not a member of ${ns}.`);
    if (info.role === 'fineGrained' && !(info.writeRepos ?? []).includes(repo)) {
      throw new HttpError(403, `This fine-grained token has no write permission on ${repo}.`);
    }
  }

  function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function repoFiles(repo: string): Map<string, CommittedFile> {
    let m = repos.get(repo);
    if (!m) repos.set(repo, (m = new Map()));
    return m;
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse, p: string): Promise<number> {
    const method = req.method ?? 'GET';
    let m: RegExpMatchArray | null;

    if (method === 'GET' && p === '/api/whoami-v2') {
      const info = requireAuth(req);
      send(res, 200, {
        type: 'user',
        id: `id-${info.user}`,
        name: info.user,
        fullname: info.user,
        email: `${info.user}@example.invalid`,
        emailVerified: true,
        isPro: false,
        canPay: false,
        avatarUrl: '',
        periodEnd: null,
        billingMode: 'prepaid',
        orgs: (info.orgs ?? []).map((o) => ({ type: 'org', id: `id-${o}`, name: o, fullname: o, email: null, canPay: false, avatarUrl: '', periodEnd: null })),
        auth: { type: 'access_token', accessToken: { displayName: 'stand-in', role: info.role, createdAt: new Date(0).toISOString() } },
      });
      return 200;
    }

    if (method === 'POST' && (m = p.match(/^\/api\/datasets\/([^/]+)\/([^/]+)\/preupload\/([^/]+)$/))) {
      const repo = `${m[1]}/${m[2]}`;
      requireWrite(req, repo);
      const body = parseJson(await readBody(req), 'preupload');
      if (!Array.isArray(body.files)) throw new HttpError(400, 'preupload: files must be an array');
      const files = body.files.map((f: { path: string; size: number; sample: string }) => {
        const sample = Buffer.from(String(f.sample ?? ''), 'base64');
        const lfs = f.size > regularMax || sample.includes(0);
        return { path: f.path, uploadMode: lfs ? 'lfs' : 'regular', shouldIgnore: false };
      });
      send(res, 200, { files, commitOid: randomBytes(20).toString('hex') });
      return 200;
    }

    if (method === 'POST' && (m = p.match(/^\/datasets\/([^/]+)\/([^/]+)\.git\/info\/lfs\/objects\/batch$/))) {
      const repo = `${m[1]}/${m[2]}`;
      requireWrite(req, repo);
      const body = parseJson(await readBody(req), 'lfs batch');
      if (body.operation !== 'upload') throw new HttpError(400, 'lfs batch: only upload is supported');
      if (!Array.isArray(body.transfers) || !body.transfers.includes('basic')) throw new HttpError(400, 'lfs batch: basic transfer required');
      const objs = (body.objects as Array<{ oid: string; size: number }>).map(({ oid, size }) => {
        if (!OID.test(oid) || !Number.isInteger(size) || size < 0) throw new HttpError(400, `lfs batch: bad object ${oid}`);
        if (objects.has(oid)) return { oid, size, authenticated: true };
        const multipart = size >= multipartThreshold && body.transfers.includes('multipart');
        const inPath = opts.tokenInUploadPath ? `${tokenOf(req)?.token ?? ''}/` : '';
        if (!multipart)
          return { oid, size, authenticated: true, actions: { upload: { href: `${base}/_lfs/upload/${inPath}${oid}?size=${size}&sig=stand-in` } } };
        const nParts = Math.ceil(size / chunkSize);
        const header: Record<string, string> = { chunk_size: String(chunkSize) };
        for (let i = 1; i <= nParts; i++) header[String(i)] = `${base}/_lfs/part/${oid}/${i}?sig=stand-in`;
        pending.set(oid, { size, parts: new Map() });
        return { oid, size, authenticated: true, actions: { upload: { href: `${base}/_lfs/complete/${oid}`, header } } };
      });
      send(res, 200, { transfer: 'basic', objects: objs }, { 'Content-Type': 'application/vnd.git-lfs+json', 'X-Request-Id': randomBytes(6).toString('hex') });
      return 200;
    }

    if (method === 'PUT' && (m = p.match(/^\/_lfs\/upload\/(?:[^/]+\/)?([0-9a-f]{64})$/))) {
      const oid = m[1];
      const data = await readBody(req);
      if (sha256(data) !== oid) throw new HttpError(400, `uploaded bytes do not match oid ${oid}`);
      objects.set(oid, data);
      transfers.set(oid, 'basic');
      res.writeHead(200, { ETag: `"${createHash('md5').update(data).digest('hex')}"` });
      res.end();
      return 200;
    }

    if (method === 'PUT' && (m = p.match(/^\/_lfs\/part\/([0-9a-f]{64})\/(\d+)$/))) {
      const oid = m[1];
      const part = Number(m[2]);
      const up = pending.get(oid);
      const data = await readBody(req);
      if (!up) throw new HttpError(404, `no multipart upload for ${oid}`);
      if (failParts.has(part)) {
        failParts.delete(part);
        throw new HttpError(500, `stand-in: part ${part} fails once`);
      }
      const nParts = Math.ceil(up.size / chunkSize);
      const expected = part < nParts ? chunkSize : up.size - chunkSize * (nParts - 1);
      if (part < 1 || part > nParts || data.length !== expected) throw new HttpError(400, `part ${part}: ${data.length} bytes, expected ${expected}`);
      const etag = `"${createHash('md5').update(data).digest('hex')}"`;
      up.parts.set(part, { data, etag });
      res.writeHead(200, { ETag: etag });
      res.end();
      return 200;
    }

    if (method === 'POST' && (m = p.match(/^\/_lfs\/complete\/([0-9a-f]{64})$/))) {
      const oid = m[1];
      const up = pending.get(oid);
      if (!up) throw new HttpError(404, `no multipart upload for ${oid}`);
      const body = parseJson(await readBody(req), 'completion');
      const nParts = Math.ceil(up.size / chunkSize);
      if (body.oid !== oid || !Array.isArray(body.parts) || body.parts.length !== nParts) throw new HttpError(400, 'completion: wrong oid or part list');
      const chunks: Buffer[] = [];
      for (let i = 1; i <= nParts; i++) {
        const claimed = body.parts.find((x: { partNumber: number }) => x.partNumber === i);
        const got = up.parts.get(i);
        if (!got || !claimed || claimed.etag !== got.etag) throw new HttpError(400, `completion: part ${i} missing or ETag mismatch`);
        chunks.push(got.data);
      }
      const data = Buffer.concat(chunks);
      if (data.length !== up.size || sha256(data) !== oid) throw new HttpError(400, `assembled bytes do not match oid ${oid}`);
      objects.set(oid, data);
      transfers.set(oid, 'multipart');
      pending.delete(oid);
      send(res, 200, { success: true });
      return 200;
    }

    if (method === 'POST' && (m = p.match(/^\/api\/datasets\/([^/]+)\/([^/]+)\/commit\/([^/]+)$/))) {
      const repo = `${m[1]}/${m[2]}`;
      requireWrite(req, repo);
      const lines = (await readBody(req))
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim());
      const oid = randomBytes(20).toString('hex');
      const staged: Array<[string, CommittedFile | null]> = [];
      let summary = '';
      for (const l of lines) {
        let op: { key: string; value: any };
        try {
          op = JSON.parse(l);
        } catch {
          throw new HttpError(400, 'commit: a line is not JSON');
        }
        if (op.key === 'header') summary = String(op.value?.summary ?? '');
        else if (op.key === 'lfsFile') {
          const data = objects.get(op.value.oid);
          if (!data) throw new HttpError(400, `commit: LFS object ${op.value.oid} was never uploaded`);
          if (data.length !== op.value.size) throw new HttpError(400, `commit: size mismatch for ${op.value.path}`);
          staged.push([op.value.path, { content: data, viaLfs: true, commitOid: oid }]);
        } else if (op.key === 'file') {
          if (op.value.encoding !== 'base64') throw new HttpError(400, 'commit: only base64 files');
          staged.push([op.value.path, { content: Buffer.from(op.value.content, 'base64'), viaLfs: false, commitOid: oid }]);
        } else if (op.key === 'deletedFile') staged.push([op.value.path, null]);
        else throw new HttpError(400, `commit: unknown key ${op.key}`);
      }
      const files = repoFiles(repo);
      for (const [fp, f] of staged) {
        if (f) files.set(fp, f);
        else files.delete(fp);
      }
      commits.push({ repo, oid, summary, paths: staged.map(([fp]) => fp) });
      send(res, 200, { success: true, commitOid: oid, commitUrl: `${base}/datasets/${repo}/commit/${oid}`, hookOutput: '' });
      return 200;
    }
    throw new HttpError(404, `stand-in hub: no route for ${method} ${p}`);
  }

  const server = http.createServer((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const authorized = tokenOf(req) !== null;
    const fault = failOnce.find((f) => f.left > 0 && f.method === method && p.includes(f.pathIncludes));
    if (fault) {
      fault.left--;
      req.resume();
      requests.push({ method, path: p, status: fault.status, authorized });
      send(res, fault.status, { error: `stand-in: injected ${fault.status}` });
      return;
    }
    route(req, res, p).then(
      (status) => requests.push({ method, path: p, status, authorized }),
      (err) => {
        const status = err instanceof HttpError ? err.status : 500;
        requests.push({ method, path: p, status, authorized });
        req.resume();
        if (!res.headersSent) send(res, status, { error: (err as Error).message });
        else res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    transfers,
    commits,
    files: repoFiles,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

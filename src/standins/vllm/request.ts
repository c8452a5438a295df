// Reads a chat-completions body the way vLLM's OpenAI layer does: the schema, the model name, the
// image items (count limit, data:/file: URLs, the allowed media path), the images themselves.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { z } from 'zod';
import * as msg from '../../core/serving/vllmMessages';
import { contentKey } from './prefixCache';
import { jpegHeader } from './jpegHeader';

// `uuid` on a part: read at the v0.11.0 tag (commit f71952c1c, through a fork that carries it:
// docs/VLLM-PINS.md, "FP's per-image uuid"). vllm/entrypoints/chat_utils.py `_parse_chat_message_content_mm_part` takes
// `part.get("uuid")` beside `image_url.url` and passes `str(uuid)` on as the item's entry of `multi_modal_uuids`;
// vllm/multimodal/processing.py `_hash_mm_items` then uses it as the item's hash (frontEnd.ts). We always send the
// URL too; 0.11.0 also takes a uuid with no URL (served from the cache only, a 400 on a miss): never sent by us.
const ImagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string() }).passthrough(),
  uuid: z.string().nullish(),
});
const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const Part = z.discriminatedUnion('type', [ImagePart, TextPart]);
const Message = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.union([z.string(), z.array(Part)]),
});
export const ChatBodySchema = z
  .object({
    model: z.string(),
    messages: z.array(Message).min(1),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    temperature: z.number().min(0).nullish(),
    stream: z.boolean().nullish(),
  })
  .passthrough();
export type ChatBody = z.infer<typeof ChatBodySchema>;

export interface LoadedImage {
  index: number;
  source: 'data' | 'file';
  path: string | null;
  /** Size of the JPEG in bytes. */
  size: number;
  /** The JPEG itself (read again for a file served from the file cache). */
  bytes(): Promise<Buffer>;
  /** Content hash (sha1 hex) of the bytes. */
  key: string;
  width: number;
  height: number;
}

type HeaderInfo = { format: string | undefined; width: number | undefined; height: number | undefined };
/**
 * Header facts by content hash: a video's frames come back with every question asked about it, so
 * each distinct JPEG is read once (sharp's metadata costs ~0.3–1 ms, ×1000 frames per request).
 */
const headerCache = new Map<string, Promise<HeaderInfo>>();
const HEADER_CACHE_MAX = 200_000;

function readHeader(key: string, bytes: Buffer): Promise<HeaderInfo> {
  let p = headerCache.get(key);
  if (!p) {
    const fast = jpegHeader(bytes);
    p = fast
      ? Promise.resolve({ format: 'jpeg', ...fast })
      : sharp(bytes)
          .metadata()
          .then((m) => ({ format: m.format, width: m.width, height: m.height }));
    p.catch(() => headerCache.delete(key)); // a failure is re-read next time, never remembered
    if (headerCache.size >= HEADER_CACHE_MAX) headerCache.delete(headerCache.keys().next().value as string);
    headerCache.set(key, p);
  }
  return p;
}

/** A refusal with the HTTP status and body vLLM would send. */
export class RequestRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'BadRequestError',
  ) {
    super(message);
  }
}

export interface ParsedChat {
  body: ChatBody;
  imageUrls: string[];
  /** Each image part's `uuid` (null where none was sent), in the order of imageUrls. */
  imageUuids: Array<string | null>;
  promptText: string;
}

/**
 * The checks every chat body gets, whatever the role: the request schema (one 400 naming every issue), no
 * streaming, and the served model name (404).
 */
export function checkedChatBody<S extends z.ZodType<{ model: string; stream?: boolean | null }>>(schema: S, raw: unknown, servedModelName: string): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
    throw new RequestRefusal(400, `1 validation error for ChatCompletionRequest: ${issues}`);
  }
  const body = r.data;
  if (body.stream) throw new RequestRefusal(400, 'stand-in vLLM: streaming is not supported');
  if (body.model !== servedModelName) {
    throw new RequestRefusal(404, `The model \`${body.model}\` does not exist.`, 'NotFoundError');
  }
  return body;
}

export function parseChatBody(raw: unknown, servedModelName: string): ParsedChat {
  const body = checkedChatBody(ChatBodySchema, raw, servedModelName);
  const imageUrls: string[] = [];
  const imageUuids: Array<string | null> = [];
  const texts: string[] = [];
  for (const m of body.messages) {
    if (typeof m.content === 'string') texts.push(m.content);
    else
      for (const p of m.content) {
        if (p.type === 'image_url') {
          imageUrls.push(p.image_url.url);
          imageUuids.push(p.uuid ?? null);
        } else texts.push(p.text);
      }
  }
  return { body, imageUrls, imageUuids, promptText: texts.join('\n') };
}

/**
 * `Path(allowed)` as Python builds it: redundant slashes and `.` parts dropped, nothing resolved
 * (no symlink followed, `..` kept). vllm/multimodal/utils.py MediaConnector takes the flag this way.
 */
export function pythonPurePath(p: string): string {
  const abs = p.startsWith('/');
  const parts = p.split('/').filter((x) => x !== '' && x !== '.');
  const joined = parts.join('/');
  return abs ? '/' + joined : joined || '.';
}

/** Python's `Path.resolve()` (strict=False): symlinks followed as far as the path exists, the rest appended. */
async function pythonResolve(p: string): Promise<string> {
  const abs = path.resolve(p);
  try {
    return await fs.realpath(abs);
  } catch {
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    return path.join(await pythonResolve(parent), path.basename(abs));
  }
}

/** `allowed in resolved.parents` (vllm/multimodal/utils.py _load_file_url): a strict ancestor, compared as text. */
export function isUnderLiteral(allowed: string, resolvedFile: string): boolean {
  if (!allowed.startsWith('/')) return false; // a relative Path never equals a parent of an absolute one
  const prefix = allowed === '/' ? '/' : allowed + '/';
  return resolvedFile.startsWith(prefix) && resolvedFile.length > prefix.length;
}

/**
 * Local files already read, by resolved path, valid while their inode, size and times are unchanged:
 * the frames of a video come back with every question about it, and reading + hashing them again per
 * request was most of the stand-in's CPU (vLLM's own media cache plays this part on a GPU host).
 */
interface FileFacts {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  key: string;
  meta: HeaderInfo;
}
const fileCache = new Map<string, FileFacts>();
const FILE_CACHE_MAX = 200_000;

/**
 * A `file:` URL checked against `--allowed-local-media-path` (vLLM's MediaConnector._load_file_url):
 * the path as requested and its resolved path. Shared by images and (AVTime) videos. `allowed` is the
 * flag as given (pure path, never resolved: vllm/multimodal/utils.py MediaConnector.__init__).
 */
export async function localMediaFile(url: string, allowed: string | null): Promise<{ requested: string; resolved: string }> {
  if (!allowed) throw new RequestRefusal(400, msg.preprocessingMessage(msg.NO_LOCAL_MEDIA_PATH));
  let p: string;
  try {
    p = fileURLToPath(url);
  } catch (e) {
    throw new RequestRefusal(400, msg.preprocessingMessage(String((e as Error).message)));
  }
  // vllm/multimodal/utils.py _load_file_url: the file's path is resolved (symlinks followed), the
  // allowed path is not, so a store reached through a symlink is refused unless the URLs and the
  // flag both name the real path. The message names the path as sent and the flag as given.
  const resolved = await pythonResolve(p);
  if (!isUnderLiteral(allowed, resolved)) {
    throw new RequestRefusal(400, msg.preprocessingMessage(msg.fileOutsideAllowedPath(p, allowed)));
  }
  return { requested: p, resolved };
}

/** Loads and checks every image; the first problem refuses the request (vLLM stops at the first too). */
export async function loadImages(urls: readonly string[], limit: number, allowedDir: string | null): Promise<LoadedImage[]> {
  if (urls.length > limit) throw new RequestRefusal(400, msg.preprocessingMessage(msg.tooManyItems(limit)));
  // The allowed path is taken as given, never resolved (vllm/multimodal/utils.py MediaConnector.__init__).
  const allowed = allowedDir ? pythonPurePath(allowedDir) : null;
  return Promise.all(urls.map((url, index) => loadOne(url, index, allowed)));
}

async function loadOne(url: string, index: number, allowed: string | null): Promise<LoadedImage> {
  let bytes: Buffer;
  let source: 'data' | 'file';
  let filePath: string | null = null;
  if (url.startsWith('data:')) {
    source = 'data';
    const comma = url.indexOf(',');
    const spec = url.slice(5, comma < 0 ? undefined : comma);
    if (comma < 0 || !spec.includes(';') || spec.split(';')[1] !== 'base64') {
      throw new RequestRefusal(400, msg.preprocessingMessage('Only base64 data URLs are supported for now.'));
    }
    bytes = Buffer.from(url.slice(comma + 1), 'base64');
  } else if (url.startsWith('file:')) {
    source = 'file';
    const { requested: p, resolved } = await localMediaFile(url, allowed);
    filePath = p;
    let st: Awaited<ReturnType<typeof fs.stat>>;
    try {
      st = await fs.stat(resolved);
    } catch {
      throw noSuchFile(p);
    }
    const known = fileCache.get(resolved);
    if (known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs && known.ctimeMs === st.ctimeMs) {
      return checked(index, source, filePath, known.size, () => fs.readFile(resolved), known.key, known.meta);
    }
    try {
      bytes = await fs.readFile(resolved);
    } catch {
      throw noSuchFile(p);
    }
    const key = contentKey(bytes);
    const meta = await headerOf(key, bytes);
    if (bytes.length === st.size) {
      if (fileCache.size >= FILE_CACHE_MAX) fileCache.delete(fileCache.keys().next().value as string);
      fileCache.set(resolved, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, key, meta });
    }
    const kept = bytes;
    return checked(index, source, filePath, kept.length, async () => kept, key, meta);
  } else if (/^https?:/.test(url)) {
    throw new RequestRefusal(400, 'stand-in vLLM: http(s) image URLs are not fetched; send data: or file: URLs');
  } else {
    throw new RequestRefusal(400, msg.preprocessingMessage(msg.BAD_URL_SCHEME));
  }
  const key = contentKey(bytes);
  const kept = bytes;
  return checked(index, source, filePath, bytes.length, async () => kept, key, await headerOf(key, bytes));
}

/** Python's FileNotFoundError text, as vLLM passes it on. */
export function noSuchFile(p: string): RequestRefusal {
  return new RequestRefusal(400, msg.preprocessingMessage(`[Errno 2] No such file or directory: '${p}'`));
}

async function headerOf(key: string, bytes: Buffer): Promise<HeaderInfo> {
  try {
    return await readHeader(key, bytes);
  } catch {
    // PIL's UnidentifiedImageError text, as vLLM passes it on.
    throw new RequestRefusal(400, msg.preprocessingMessage('cannot identify image file <_io.BytesIO object at 0x7f0e4c2b1a30>'));
  }
}

function checked(
  index: number,
  source: 'data' | 'file',
  filePath: string | null,
  size: number,
  bytes: () => Promise<Buffer>,
  key: string,
  meta: HeaderInfo,
): LoadedImage {
  if (meta.format !== 'jpeg' || !meta.width || !meta.height) {
    throw new RequestRefusal(400, `stand-in vLLM: image ${index} is ${meta.format ?? 'unknown'}, the protocol sends JPEG only`);
  }
  return { index, source, path: filePath, size, bytes, key, width: meta.width, height: meta.height };
}

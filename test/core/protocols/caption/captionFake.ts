// A tiny caption server on 127.0.0.1 for the failure matrix: GET /health, POST /v1/chat/completions answered by
// `reply(clip, n)` — the clip's `<stem>/clip_NNNN` and how many times it has been asked (1-based). Every request
// is counted per clip; 'hold' keeps a request open until the server closes.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export type FakeReply = { status: number; content?: string; error?: string; promptTokenIds?: number[] } | 'hold';

export interface CaptionFake {
  url: string;
  /** Requests per clip key. */
  asked: Map<string, number>;
  bodies: Record<string, any>[];
  close(): Promise<void>;
}

/** `<stem>/clip_NNNN` of a request's video_url. */
export function clipKey(body: Record<string, any>): string {
  const file = fileURLToPath(body.messages[0].content[0].video_url.url);
  const parts = file.split('/');
  return `${parts[parts.length - 3]}/${parts[parts.length - 1].replace(/\.mp4$/, '')}`;
}

/** `port`: a given one (the same server back on its address), else a free one. */
export async function startCaptionFake(reply: (clip: string, n: number, body: Record<string, any>) => FakeReply, port = 0): Promise<CaptionFake> {
  const asked = new Map<string, number>();
  const bodies: Record<string, any>[] = [];
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/health') return void res.end('ok');
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404);
        return void res.end();
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      bodies.push(body);
      const key = clipKey(body);
      const n = (asked.get(key) ?? 0) + 1;
      asked.set(key, n);
      const r = reply(key, n, body);
      if (r === 'hold') return void held.add(res);
      res.writeHead(r.status, { 'content-type': 'application/json' });
      if (r.status !== 200) return void res.end(JSON.stringify({ error: { message: r.error ?? `HTTP ${r.status}`, type: 'BadRequestError', code: r.status } }));
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: r.content ?? '' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          ...(r.promptTokenIds ? { prompt_token_ids: r.promptTokenIds } : {}),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    asked,
    bodies,
    close: async () => {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The accepted answer of a clip: reasoning, a fenced block, clamping, a fold and the pinned ends all matter. */
export function answerOf(clip: string): string {
  return (
    `<think>maybe [1, 2]</think>Here it is:\n\`\`\`json\n` +
    JSON.stringify([
      { start_sec: -0.25, end_sec: 0.4567, caption: `  ${clip}   begins ` },
      { start_sec: 0.7, end_sec: 0.3, caption: 'folded in' },
      { start_sec: 0.5004, end_sec: 9, caption: `${clip} ends` },
    ]) +
    '\n```'
  );
}

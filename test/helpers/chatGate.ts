// A gate in front of a stand-in vLLM, on 127.0.0.1: everything passes through to the server, except that chat
// requests after the first `passFirst` are held, unanswered, until the test calls release(). A test holds a run
// open with it for as long as it needs, by construction rather than by timing (the pre-flight's one request per
// server passes; the sweep's requests are held and stay in flight).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatGate {
  url: string;
  /** Chat requests held so far (released or not). */
  readonly held: number;
  /** Lets every held request through, and every later one. */
  release(): void;
  close(): Promise<void>;
}

export async function startChatGate(upstream: string, passFirst: number): Promise<ChatGate> {
  let chats = 0;
  let held = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/chat/completions') && ++chats > passFirst) {
        held++;
        await released;
      }
      const up = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get held() {
      return held;
    },
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

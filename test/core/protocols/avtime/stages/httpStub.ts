// A tiny chat-completions server on 127.0.0.1 for the stage tests: `answer(body)` decides each reply
// (status + text, or 'hang' to hold the request until the client gives up). Every body is kept.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { probeMedia } from '../../../../../src/core/serving/models/qwen3Omni/mediaFacts';
import { OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID } from '../../../../../src/core/serving/models/qwen3Omni/counts';
import { targetPlan } from '../../../../../src/core/serving/models/qwen3Omni/videoPlan';

/** Template ids, then the reference's video and audio placeholders for the request's video. */
async function referenceTokenIds(body: Record<string, any>): Promise<number[]> {
  const url = body.messages?.[0]?.content?.[0]?.video_url?.url;
  if (typeof url !== 'string') return [1, 2, 3];
  const p = targetPlan(await probeMedia(fileURLToPath(url)), body.mm_processor_kwargs?.use_audio_in_video === true);
  return [1, 2, 3, ...Array(p.predicted.video).fill(OMNI_VIDEO_TOKEN_ID), ...Array(p.predicted.audio).fill(OMNI_AUDIO_TOKEN_ID), 4];
}

export type StubReply = { status?: number; text?: string; error?: string } | 'hang';

export interface Stub {
  url: string;
  bodies: Record<string, any>[];
  close(): Promise<void>;
}

export async function startStub(answer: (body: Record<string, any>) => StubReply | Promise<StubReply>, models = ['stub-model']): Promise<Stub> {
  const bodies: Record<string, any>[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (req.method === 'GET' && req.url === '/health') return void res.end('ok');
      // vLLM's show_version; a release inside both AVTime pins (the servers stage refuses one outside).
      if (req.method === 'GET' && req.url === '/version') return void res.end(JSON.stringify({ version: '0.18.0' }));
      if (req.method === 'GET' && req.url === '/v1/models') {
        return void res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', root: id, max_model_len: 65536 })) }));
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ detail: 'Not Found' }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      bodies.push(body);
      const r = await answer(body);
      if (r === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const status = r.status ?? 200;
      // The pre-flight asks for the prompt's token ids: a correct server's placeholder counts for that file.
      const ids = status === 200 && body.return_token_ids ? await referenceTokenIds(body) : null;
      res.writeHead(status, { 'content-type': 'application/json' });
      if (status !== 200) return void res.end(JSON.stringify({ error: { message: r.error ?? 'bad request', type: 'BadRequestError', code: status } }));
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: r.text ?? '' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          ...(ids ? { prompt_token_ids: ids } : {}),
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

// How ffmpeg's raw frames reach node. Same bytes either way; only the CPU spent moving them differs.
//
// 'socket' (default where Unix sockets exist): ffmpeg's stdout is one end of a connected Unix socket and
//   node reads the other end with net's `onread` option, straight into the frame being filled: no 64 KiB
//   chunk allocated, zeroed, copied and garbage-collected per read. On a 1024-frame 720p video this
//   took node's share of moving 2.3 GB from ~3-4 CPU s to ~0.9 (bench/frames.ts, profile in its header).
// 'pipe': ffmpeg's stdout is a pipe read as a stream and copied into frames (portable fallback).
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { FrameAssembler } from './frameAssembler';

export type RawTransportKind = 'socket' | 'pipe';

export function defaultRawTransport(): RawTransportKind {
  return process.platform === 'win32' ? 'pipe' : 'socket';
}

export interface RawTransport {
  /** For the child's stdio[1]. */
  childStdout: net.Socket | 'pipe';
  /** Call once the child has been spawned (or failed to spawn); `stdout` is the child's stdout stream for 'pipe'. */
  spawned(stdout: Readable | null): void;
  /** Resolves when the input has ended (EOF, error or stop()). */
  done: Promise<void>;
  /** Stops reading and closes node's end (ffmpeg then gets EPIPE). */
  stop(): void;
}

/** The socket transport, or null when it cannot be set up here (the caller then uses the pipe). */
export async function openSocketTransport(asm: FrameAssembler): Promise<RawTransport | null> {
  let dir: string | null = null;
  let server: net.Server | null = null;
  try {
    // A private directory (0700): nobody else can connect before we do.
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-raw-'));
    const sockPath = path.join(dir, 's');
    const srv = net.createServer();
    server = srv;
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(sockPath, () => resolve());
    });
    const accepted = new Promise<net.Socket>((resolve) => srv.once('connection', resolve));
    const scratch = Buffer.allocUnsafe(64 * 1024);
    let client!: net.Socket;
    const onread = {
      buffer: () => asm.directTarget() ?? scratch,
      callback: (n: number, buf: Uint8Array) => {
        if (buf === scratch) asm.push(scratch.subarray(0, n));
        else asm.advance(n);
        if (!asm.paused) return true;
        void resumeWhenReady();
        return false;
      },
    };
    const resumeWhenReady = async () => {
      while (asm.paused) await asm.ready;
      if (!client.destroyed) client.resume();
    };
    client = net.connect({ path: sockPath, onread });
    const connected = new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const [peer] = await Promise.all([accepted, connected]);
    srv.close();
    await fs.rm(dir, { recursive: true, force: true });
    dir = null;
    const done = new Promise<void>((resolve) => {
      client.on('error', () => resolve()); // ECONNRESET and the like: ffmpeg's exit status says what happened
      client.once('end', () => resolve());
      client.once('close', () => resolve());
    });
    return {
      childStdout: peer,
      spawned: () => peer.destroy(), // the child holds its own copy
      done,
      stop: () => client.destroy(),
    };
  } catch {
    server?.close();
    return null;
  } finally {
    if (dir !== null) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** The pipe transport: the child's stdout stream, copied into frames. */
export function pipeTransport(asm: FrameAssembler): RawTransport {
  let stopped = false;
  let stdout: Readable | null = null;
  let begin!: (s: Readable | null) => void;
  const started = new Promise<Readable | null>((resolve) => {
    begin = resolve;
  });
  const done = (async () => {
    const s = await started;
    if (s === null) return;
    for await (const chunk of s as AsyncIterable<Buffer>) {
      if (stopped) break;
      if (!asm.push(chunk)) while (asm.paused) await asm.ready;
      if (stopped) break;
    }
  })().catch(() => undefined);
  return {
    childStdout: 'pipe',
    spawned: (s) => {
      stdout = s;
      begin(s);
    },
    done,
    stop: () => {
      stopped = true;
      stdout?.destroy();
    },
  };
}

// Cuts ffmpeg's raw byte stream into whole frames of `frameBytes`, in buffers the caller hands out (the
// byte budget decides when). Transport-neutral: bytes either land directly in the frame being filled
// (`directTarget()` + `advance(n)`, the socket transport) or arrive in someone else's buffer (`push`,
// which copies; the pipe transport and the socket's scratch reads).
//
// Bytes after the last wanted frame are counted (`extraBytes`), never delivered; a partial frame at
// the end is reported by `finish()`. Both are decode failures for the caller, never guessed around.

export interface FrameAssemblerHooks {
  frameBytes: number;
  /** Frames wanted. */
  frames: number;
  /** A buffer for the next frame: at once when the budget allows, else a promise (reading pauses meanwhile). */
  nextBuffer(): Buffer | Promise<Buffer>;
  /** A whole frame (the assembler no longer touches `buf`). */
  onFrame(buf: Buffer): void;
  /** A buffer from nextBuffer() that will hold no frame (the input ended or stopped first). */
  giveBack(buf: Buffer): void;
}

export class FrameAssembler {
  private cur: Buffer | null = null;
  private filled = 0;
  private pending: Buffer | null = null;
  private waitingFor: Promise<void> | null = null;
  private stopped = false;
  delivered = 0;
  extraBytes = 0;

  constructor(private readonly hooks: FrameAssemblerHooks) {
    if (hooks.frameBytes < 1 || hooks.frames < 0) throw new RangeError('frame assembler needs frameBytes ≥ 1, frames ≥ 0');
    this.obtain();
  }

  /** Where the next read may land directly (the rest of the current frame), or null: read elsewhere and push(). */
  directTarget(): Buffer | null {
    if (this.cur === null || this.pending !== null || this.stopped) return null;
    return this.cur.subarray(this.filled);
  }

  /** `n` bytes were read into the last directTarget(). */
  advance(n: number): void {
    if (this.cur === null || this.filled + n > this.hooks.frameBytes) throw new RangeError('read past the frame being filled');
    this.filled += n;
    if (this.filled === this.hooks.frameBytes) this.complete();
  }

  /**
   * Bytes read elsewhere (copied; `data` may be reused after the call). Returns false when reading must
   * pause: `ready` then resolves once they are placed and more can be taken.
   */
  push(data: Buffer): boolean {
    if (data.length === 0 || this.stopped) return !this.paused;
    this.pending = this.pending === null ? Buffer.from(data) : Buffer.concat([this.pending, data]);
    this.drain();
    return !this.paused;
  }

  get paused(): boolean {
    return this.waitingFor !== null;
  }

  /** Resolves when a paused assembler can take bytes again (immediately when not paused). */
  get ready(): Promise<void> {
    return this.waitingFor ?? Promise.resolve();
  }

  /** Stops delivering (the consumer failed); later bytes are dropped. */
  stop(): void {
    this.stopped = true;
  }

  /** End of input: the bytes of an unfinished frame (0 when none); its buffer goes back through giveBack. */
  finish(): { partialBytes: number } {
    this.stopped = true;
    const partialBytes = this.filled + (this.pending?.length ?? 0);
    if (this.cur !== null) this.hooks.giveBack(this.cur);
    this.cur = null;
    this.filled = 0;
    this.pending = null;
    return { partialBytes };
  }

  private drain(): void {
    while (this.pending !== null && !this.stopped) {
      if (this.delivered >= this.hooks.frames) {
        this.extraBytes += this.pending.length;
        this.pending = null;
        return;
      }
      if (this.cur === null) return; // waiting for a buffer: drained again when it comes
      const n = Math.min(this.hooks.frameBytes - this.filled, this.pending.length);
      this.pending.copy(this.cur, this.filled, 0, n);
      this.pending = n === this.pending.length ? null : this.pending.subarray(n);
      this.filled += n;
      if (this.filled === this.hooks.frameBytes) this.complete();
    }
  }

  private complete(): void {
    const buf = this.cur!;
    this.cur = null;
    this.filled = 0;
    this.delivered++;
    this.hooks.onFrame(buf);
    this.obtain();
  }

  /** Takes the next frame's buffer, or pauses until the budget gives one. */
  private obtain(): void {
    if (this.delivered >= this.hooks.frames || this.stopped) return;
    const next = this.hooks.nextBuffer();
    if (Buffer.isBuffer(next)) {
      this.cur = next;
      return;
    }
    this.waitingFor = next.then((buf) => {
      this.waitingFor = null;
      if (this.stopped) {
        this.hooks.giveBack(buf);
        return;
      }
      this.cur = buf;
      this.drain();
    });
  }
}

// One fact, one type: a server cannot hold the protocol's context. The run stops and reports; the
// context is never lowered. Found three ways, all this error: vLLM refuses to start for its KV cache
// (the launcher), /v1/models shows a smaller max_model_len (runner/servers.ts), or a context refusal
// names a maximum below the protocol's (runner/requestChannel.ts).

export interface ContextShortfall {
  /** The server (launcher id or URL). */
  server: string;
  /** The context the protocol needs, in tokens. */
  needed: number;
  /** The context the server has, when it says (null: vLLM refused to start, naming its KV cache). */
  held: number | null;
}

export class ContextLengthError extends Error {
  constructor(
    message: string,
    readonly shortfall: ContextShortfall,
  ) {
    super(message);
    this.name = 'ContextLengthError';
  }
}

/** The context length a vLLM context refusal names ("maximum model length of N", "maximum context length is N tokens"). */
export function refusalContextLength(message: string): number | null {
  const m = /maximum model length of (\d+)/i.exec(message) ?? /maximum context length is (\d+) tokens/i.exec(message);
  return m ? Number(m[1]) : null;
}

/** A context refusal from `server` that shows it holds less than `needed`: the error that stops the run; else null. */
export function contextShortfallOfRefusal(server: string, message: string, needed: number): ContextLengthError | null {
  const held = refusalContextLength(message);
  if (held === null || held >= needed) return null;
  return new ContextLengthError(
    `${server} refused a request with a context of ${held} tokens < ${needed} ` +
      `(${message}); restart it with --max-model-len ${needed} — the run never lowers it`,
    { server, needed, held },
  );
}

/**
 * `avtime caption <root> --backend gemini` as the Gemini tests type it against the stand-in: quick polls and ticks
 * so a test waits on states, not on the defaults' seconds. `extra` goes last, as a user appends a flag.
 */
export function geminiCaptionArgs(root: string, baseUrl: string, o: { model?: string; pollMs?: number; extra?: string[] } = {}): string[] {
  return [
    'avtime',
    'caption',
    root,
    '--backend',
    'gemini',
    '--model',
    o.model ?? 'gemini-2.5-pro',
    '--gemini-base-url',
    baseUrl,
    '--poll-ms',
    String(o.pollMs ?? 20),
    '--tick-ms',
    '100',
    ...(o.extra ?? []),
  ];
}

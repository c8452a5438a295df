// vLLM's log line shape: `INFO 12-02 13:20:05 [api_server.py:1971] message`.

export function logLine(level: 'INFO' | 'WARNING' | 'ERROR', where: string, message: string, stream: NodeJS.WritableStream): void {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  stream.write(`${level} ${stamp} [${where}] ${message}\n`);
}

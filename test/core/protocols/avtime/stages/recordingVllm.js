#!/usr/bin/env node
// A `vllm` for the launcher group test: records its argv and the environment the launcher gave it
// (CUDA_VISIBLE_DEVICES, whether VLLM_API_KEY is set) to $RECORD_DIR/<port>.json, then answers /health
// /v1/models and /version (RECORD_VLLM_VERSION, default 0.18.0) on 127.0.0.1:<--port> until it is stopped.
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const argv = process.argv.slice(2);
const port = Number(argv[argv.indexOf('--port') + 1]);
const host = argv[argv.indexOf('--host') + 1];
fs.writeFileSync(
  path.join(process.env.RECORD_DIR, `${port}.json`),
  JSON.stringify({
    argv,
    cuda: process.env.CUDA_VISIBLE_DEVICES,
    keyLength: (process.env.VLLM_API_KEY || '').length,
  }),
);
http
  .createServer((req, res) => {
    if (req.url === '/health') return res.end('');
    if (req.url === '/v1/models') return res.end(JSON.stringify({ data: [{ id: argv[1], max_model_len: 65536 }] }));
    if (req.url === '/version') return res.end(JSON.stringify({ version: process.env.RECORD_VLLM_VERSION || '0.18.0' }));
    res.statusCode = 404;
    res.end('{}');
  })
  .listen(port, host);
process.on('SIGTERM', () => process.exit(0));

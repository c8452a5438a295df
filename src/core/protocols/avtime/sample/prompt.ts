// The sample bench root's README (its prompts come from the packaged prompt module, ../prompts.ts).
export const SAMPLE_README = `# AVTime sample bench (made by \`fpsweep avtime sample\`)

A small complete bench root for tests and the demo: seven short synthetic videos (coloured screens
with a white square passing over them; tones, a rising tone, silence and a beep in their audio
track), \`test.jsonl\`, \`inventory.jsonl\` (durations audited with ffprobe, sha256, absolute media
paths) and \`benchmark_reference_manifest.jsonl\` (t2e, e2t and e2e queries on axes A and V, drawn
from the reference events the videos were made from).

\`prompts/target.txt\` is a STAND-IN for the frozen LongVALE training prompt, which the seed does not
print: a LongVALE-style dense-captioning prompt asking for \`From XX to YY, caption\` lines;
\`prompts/system.txt\` is the system message of SFT rows built on this root (\`avtime build-sft\`). Scores
of a real model on this sample mean nothing; they exercise the pipeline.
`;

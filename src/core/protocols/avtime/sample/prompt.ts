// The sample bench's frozen target prompt. The seed names "the frozen LongVALE training prompt" but
// does not print it; this is a stand-in written in its style (dense audio-visual captioning, one
// `From XX to YY, caption` line per event, two-digit percentages of the video's length), so the
// sample runs end to end. A real bench root carries the real prompt in prompts/target.txt.
export const SAMPLE_TARGET_PROMPT =
  [
    'Watch the video and listen to its audio carefully.',
    'Identify every distinct audio-visual event in the video, in the order in which they occur, and describe each one with a short caption.',
    'Give the time span of each event as percentages of the total video length: ' +
      'XX is the percentage at which the event starts and YY the percentage at which it ends, each written with two digits from 00 to 99.',
    'Output one event per line, exactly in the format:',
    'From XX to YY, caption',
    'Do not output anything else.',
  ].join('\n') + '\n';

export const SAMPLE_README = `# AVTime sample bench (made by \`fpsweep avtime sample\`)

A small complete bench root for tests and the demo: seven short synthetic videos (coloured screens
with a white square passing over them; tones, a rising tone, silence and a beep in their audio
track), \`test.jsonl\`, \`inventory.jsonl\` (durations audited with ffprobe, sha256, absolute media
paths) and \`benchmark_reference_manifest.jsonl\` (t2e, e2t and e2e queries on axes A and V, drawn
from the reference events the videos were made from).

\`prompts/target.txt\` is a STAND-IN for the frozen LongVALE training prompt, which the seed does not
print: a LongVALE-style dense-captioning prompt asking for \`From XX to YY, caption\` lines. Scores
of a real model on this sample mean nothing; they exercise the pipeline.
`;

// The packaged AVTime prompts: the one source of the texts fpsweep ships (issue 36 point 5). The sample bench root
// writes them into its prompts/ folder, and `avtime build-sft` without --bench-root uses them as they are here, so
// the SFT rows and the bench's target requests never hold two copies of a prompt. A real bench root carries the
// real frozen LongVALE prompt in prompts/target.txt, which wins wherever a bench root is named.
// The seed names "the frozen LongVALE training prompt" but does not print it: the target text below is a stand-in
// written in its style (dense audio-visual captioning, one `From XX to YY, caption` line per event, two-digit
// percentages of the video's length), so the sample runs end to end.

/** Bumped whenever a text below changes (recorded with the rows that used the packaged prompts). */
export const PACKAGED_PROMPTS_VERSION = 'fpsweep-avtime-prompts-1';

export const PACKAGED_TARGET_PROMPT =
  [
    'Watch the video and listen to its audio carefully.',
    'Identify every distinct audio-visual event in the video, in the order in which they occur, and describe each one with a short caption.',
    'Give the time span of each event as percentages of the total video length: ' +
      'XX is the percentage at which the event starts and YY the percentage at which it ends, each written with two digits from 00 to 99.',
    'Output one event per line, exactly in the format:',
    'From XX to YY, caption',
    'Do not output anything else.',
  ].join('\n') + '\n';

/** The system message of the sample's rows and of SFT rows built on the packaged prompts. */
export const PACKAGED_SYSTEM_PROMPT = 'You are a helpful assistant.';

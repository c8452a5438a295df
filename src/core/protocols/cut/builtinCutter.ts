// Our cutter (`--cutter builtin`, builtin/) as a Cutter: its settings from --config (YAML), its lines into the video's
// log, the video directory written in {staging} itself. It runs without ASR and audio events, so its cuts are
// accepted as degraded in those two channels (and marked so) without --allow-degraded.
import * as yaml from 'js-yaml';
import { checkValueBounds } from '../../io/boundedJson';
import { InputError } from '../../errors';
import { BUILTIN_CUTTER_NAME, builtinConfigFrom, cutBuiltin } from './builtin';
import type { Cutter } from './cutter';
import { ChildStopped } from '../../media/stoppedChild';

export function builtinCutter(configText: string | null, where: string): Cutter {
  let doc: unknown = undefined;
  if (configText !== null) {
    try {
      doc = yaml.load(configText);
    } catch (err) {
      // js-yaml recurses: a document nested past the stack is a RangeError here, the user's input all the same.
      const why = err instanceof RangeError ? 'nested too deep' : (err as Error).message;
      throw new InputError(`--config ${where}: not YAML: ${why}`);
    }
    checkValueBounds(doc, { file: `--config ${where}` });
  }
  const config = builtinConfigFrom(doc, where);
  return {
    name: 'builtin',
    knownDegraded: ['asr', 'audio_events'],
    async cut(req) {
      try {
        await cutBuiltin({ input: req.input, videoDir: req.staging, config, log: (line) => req.log.write(line + '\n'), signal: req.signal });
        return { ok: true };
      } catch (err) {
        if (req.signal.aborted) return { ok: false, reason: 'stopped before the cutter finished' };
        if (err instanceof ChildStopped) return { ok: false, reason: err.message, interrupted: true };
        req.log.write(`${BUILTIN_CUTTER_NAME}: ${(err as Error)?.message ?? String(err)}\n`);
        return { ok: false, reason: `the builtin cutter failed: ${(err as Error)?.message ?? String(err)}`, whole: true };
      }
    },
  };
}

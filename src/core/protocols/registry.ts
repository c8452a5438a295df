// The run types of this build. A new one: its folder under src/core/protocols/ exporting a RunProtocol
// (types.ts), and one line in PROTOCOLS below. The worker's side of each (the function that runs its job) is
// in src/worker/jobRunners.ts, so the extension, which imports this list, never bundles a sweep or a launcher.
import { avtimeProtocol } from './avtime';
import { captionProtocol } from './caption';
import { cutProtocol } from './cut';
import { fpProtocol } from './fp';
import { ProtocolRegistry } from './types';

export const PROTOCOLS = new ProtocolRegistry([fpProtocol, avtimeProtocol, captionProtocol, cutProtocol]);

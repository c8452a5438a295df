// A server's state, one type from the launcher to the tree: the launcher emits it, the runner moves
// work on it, the status file stores it (these very words on disk) and the progress tree shows it.
//   starting    launched, not yet answering /health
//   up          answering /health: takes requests
//   restarting  died or hung; the launcher is starting it again
//   down        not answering. With `final` on the event that said so, it will not come back in this
//               run (a launched server whose restarts are used up, or stopped); a given endpoint that is
//               down may answer again.
import { z } from 'zod';

export const SERVER_STATES = ['starting', 'up', 'restarting', 'down'] as const;
export const serverStateSchema = z.enum(SERVER_STATES);
export type ServerState = z.infer<typeof serverStateSchema>;

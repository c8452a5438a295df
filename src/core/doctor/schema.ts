// `fpsweep doctor --json` and what the extension shows: one line per check, ok / warn / fail,
// with what to do about it.
import { z } from 'zod';

export const doctorLineSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['ok', 'warn', 'fail']),
  detail: z.string(),
  /** What to do (null when nothing is needed). */
  action: z.string().nullable(),
});
export type DoctorLine = z.infer<typeof doctorLineSchema>;

export const doctorReportSchema = z.object({
  packageDir: z.string().nullable(),
  lines: z.array(doctorLineSchema),
  ok: z.boolean(),
});
export type DoctorReport = z.infer<typeof doctorReportSchema>;

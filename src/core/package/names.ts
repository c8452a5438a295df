import { z } from 'zod';

/** A name that is safe as one path segment: no separators, no `..`, no NUL, not empty. */
export function isPlainName(s: string): boolean {
  return s.length > 0 && s.length <= 255 && !/[\\/\0]/.test(s) && !s.includes('..') && s !== '.';
}

export const plainName = z.string().refine(isPlainName, {
  message: 'must be a plain name (no "/", "\\", "..", or NUL)',
});

// Python's fixed-point formatting (`f"{x:6.2f}"`), so our timing table prints the very characters
// the seed's script prints. JS toFixed breaks exact ties away from zero (0.125 → "0.13"); Python
// rounds the exact binary value half to even (0.125 → "0.12"). A tie is only possible when the
// value's exact decimal expansion ends right after the digit that is rounded, which toFixed(100)
// shows exactly for every value that could tie at ≤ 20 digits.

export function pyFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '-inf' : 'nan';
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toFixed(digits);
  const exact = a.toFixed(100);
  const frac = exact.slice(exact.indexOf('.') + 1);
  const tie = frac[digits] === '5' && /^0*$/.test(frac.slice(digits + 1));
  if (tie) {
    const lastDigit = Number(s[s.length - 1]);
    if (lastDigit % 2 === 1) {
      // toFixed went up to an odd digit; Python keeps the even one below it.
      const n = BigInt(s.replace('.', '')) - 1n;
      let t = n.toString().padStart(digits + 1, '0');
      if (digits > 0) t = `${t.slice(0, t.length - digits)}.${t.slice(t.length - digits)}`;
      s = t;
    }
  }
  return neg ? `-${s}` : s;
}

/** `f"{x:W.Df}"`: right-aligned in width W. */
export function pyFixedWidth(x: number, width: number, digits: number): string {
  return pyFixed(x, digits).padStart(width);
}

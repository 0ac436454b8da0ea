// RFC 6238 time-based codes (SHA-1, 6 digits, 30 s steps), as an authenticator app computes them
// from the secret the account page shows.
import { createHmac } from 'node:crypto';

/** RFC 4648 base32 (no padding needed) to bytes. */
export function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/[\s=]/g, '').toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The 30-second step a time falls in. */
export const totpStep = (timeMs = Date.now()) => Math.floor(timeMs / 30_000);

/** The code of a step (RFC 4226 dynamic truncation). */
export function totpCode(secret, step = totpStep()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const hmac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = hmac[hmac.length - 1] & 0x0f;
  return ((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, '0');
}

/** Waits until the step after `step` (a server may refuse a code already used in its step). */
export async function nextStep(step) {
  const wait = (step + 1) * 30_000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
  return totpStep();
}

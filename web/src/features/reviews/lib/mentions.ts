//! Mentions in a comment: `@` followed by a member's address (any case), as the server reads
//! them (crates/server/src/http/api/reviews.rs, `mentioned`). Pure functions: finding the
//! mentions of a body to highlight them, and the `@…` being typed at the caret, for the picker.

/** A piece of a comment's body: plain text, or a mention (`@ana@agence.fr`). */
export type BodyPart = { text: string; mention: boolean };

/** Whether an address ends where `rest` starts (not a longer one; a sentence's full stop may follow). */
function endsAt(rest: string): boolean {
  if (rest === '') return true;
  const [next, after] = [rest[0], rest[1]];
  if (next === '.') return after === undefined || !/[\p{L}\p{N}]/u.test(after);
  return !/[\p{L}\p{N}\-_@]/u.test(next);
}

/** Any `@address` (when the mentioned addresses are not known: a member who has left). */
const ANY_MENTION = /@[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/**
 * The body cut into plain text and mentions. `addresses` are those the comment mentions (its
 * `mentions` ids resolved through the members); when null, every `@address` is one.
 */
export function splitMentions(body: string, addresses: readonly string[] | null): BodyPart[] {
  const ranges: [number, number][] = [];
  if (addresses === null) {
    for (const match of body.matchAll(ANY_MENTION)) ranges.push([match.index, match.index + match[0].length]);
  } else {
    const lower = body.toLowerCase();
    for (const address of addresses) {
      const needle = `@${address.toLowerCase()}`;
      for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + 1)) {
        if (endsAt(lower.slice(at + needle.length))) ranges.push([at, at + needle.length]);
      }
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const parts: BodyPart[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    if (start < from) continue;
    if (start > from) parts.push({ text: body.slice(from, start), mention: false });
    parts.push({ text: body.slice(start, end), mention: true });
    from = end;
  }
  if (from < body.length || parts.length === 0) parts.push({ text: body.slice(from), mention: false });
  return parts;
}

/** The `@…` typed just before the caret: where its `@` is and what follows it, or null. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const match = /(^|\s)@([^\s@]*(?:@[^\s@]*)?)$/.exec(text.slice(0, caret));
  if (!match) return null;
  return { start: match.index + match[1].length, query: match[2] };
}

/** `text` with the `@…` from `start` to `caret` replaced by `@address `, and the caret after it. */
export function insertMention(text: string, start: number, caret: number, address: string): { text: string; caret: number } {
  const inserted = `@${address} `;
  const rest = text.slice(caret).replace(/^\S*/, '').replace(/^ /, '');
  return { text: text.slice(0, start) + inserted + rest, caret: start + inserted.length };
}

/** The addresses that match what is typed after `@` (start of the address first), at most `limit`. */
export function matchingAddresses(addresses: readonly string[], query: string, limit = 6): string[] {
  const q = query.toLowerCase();
  const starts = addresses.filter((address) => address.toLowerCase().startsWith(q));
  const contains = addresses.filter((address) => !address.toLowerCase().startsWith(q) && address.toLowerCase().includes(q));
  return [...starts, ...contains].slice(0, limit);
}

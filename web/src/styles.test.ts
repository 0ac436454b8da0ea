//! The stylesheet is plain CSS, one level deep: a rule inside a rule is CSS nesting, which the
//! build accepts silently, so one missing `}` once put every later rule of the file under
//! `.leaflet-control-attribution a` (the import page and the account sections lost their
//! styles). Only at-rules (`@media`, `@supports`, `@keyframes`, ...) may hold rules.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

/** Each rule's selector with the at-rules it sits in, or the first selector found nested. */
function nestedSelectors(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '').replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""');
  const stack: string[] = [];
  const nested: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '{') {
      const head = text.slice(start, i).split(/[;}]/).pop()!.trim();
      if (!head.startsWith('@') && stack.some((outer) => !outer.startsWith('@'))) nested.push(head);
      stack.push(head);
      start = i + 1;
    } else if (c === '}') {
      stack.pop();
      start = i + 1;
    } else if (c === ';') {
      start = i + 1;
    }
  }
  if (stack.length > 0) nested.push(`unclosed: ${stack.join(' > ')}`);
  return nested;
}

describe('index.css', () => {
  it('holds no rule inside another rule, and closes every block', () => {
    const css = readFileSync(resolve(__dirname, 'index.css'), 'utf8');
    expect(nestedSelectors(css)).toEqual([]);
  });

  it('finds a rule left open', () => {
    expect(nestedSelectors('.a { color: red;\n.b { color: blue; }')).toEqual(['.b', 'unclosed: .a']);
    expect(nestedSelectors('@media (width < 1px) { .a { color: red; } }')).toEqual([]);
  });
});

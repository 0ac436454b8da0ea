#!/usr/bin/env node
// Checks that every locale file in src/locales holds exactly the same keys as
// the reference (fr.json), with non-empty string values and the same
// {{interpolation}} placeholders. Exits 1 and lists the problems otherwise.
// The same function runs inside `npm test` (src/locales/locales.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Flattens nested objects into `a.b.c` keys; leaves keep their raw value. */
export function flatten(tree, prefix = '', out = {}) {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      flatten(value, path, out);
    } else {
      out[path] = value;
    }
  }
  return out;
}

const placeholders = (text) => [...text.matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1]).sort().join(',');

/**
 * Compares locales (name → parsed JSON) against the reference locale.
 * Returns a list of human-readable problems; empty means all is well.
 */
export function compareLocales(locales, reference = 'fr') {
  const problems = [];
  const flat = Object.fromEntries(Object.entries(locales).map(([name, tree]) => [name, flatten(tree)]));
  const allKeys = new Set(Object.values(flat).flatMap((entries) => Object.keys(entries)));
  for (const [name, entries] of Object.entries(flat)) {
    for (const key of [...allKeys].sort()) {
      if (!(key in entries)) {
        problems.push(`${name}: missing key "${key}"`);
        continue;
      }
      const value = entries[key];
      if (typeof value !== 'string') {
        problems.push(`${name}: "${key}" is not a string`);
      } else if (value.trim() === '') {
        problems.push(`${name}: "${key}" is empty`);
      } else if (name !== reference && typeof flat[reference]?.[key] === 'string') {
        if (placeholders(value) !== placeholders(flat[reference][key])) {
          problems.push(`${name}: "${key}" has placeholders that differ from ${reference}`);
        }
      }
    }
  }
  return problems;
}

/** Reads every `*.json` file of a folder as a locale. */
export function readLocales(folder) {
  return Object.fromEntries(
    readdirSync(folder)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(folder, file), 'utf8'))]),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const folder = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'locales');
  const locales = readLocales(folder);
  const problems = compareLocales(locales);
  if (Object.keys(locales).length < 2) problems.push(`expected at least two locales in ${folder}`);
  if (problems.length > 0) {
    console.error(`i18n check failed:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`i18n check passed: ${Object.keys(locales).join(', ')} hold the same ${Object.keys(flatten(locales.fr ?? {})).length} keys.`);
}

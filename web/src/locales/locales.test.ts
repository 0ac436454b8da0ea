import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { compareLocales, readLocales } from '../../scripts/check-i18n.mjs';

import en from './en.json';
import fr from './fr.json';

const here = dirname(fileURLToPath(import.meta.url));

describe('locale files', () => {
  it('fr and en hold the same keys, none empty (same check as npm run check:i18n)', () => {
    const locales = readLocales(here);
    expect(Object.keys(locales).sort()).toEqual(['en', 'fr']);
    expect(compareLocales(locales)).toEqual([]);
  });

  it('the check reports a missing key, an empty value and differing placeholders', () => {
    const problems = compareLocales({
      fr: { a: { b: 'un', c: 'deux' }, d: 'au moins {{count}}' },
      en: { a: { b: '  ' }, d: 'at least {{n}}' },
    });
    expect(problems).toEqual([
      'en: "a.b" is empty',
      'en: missing key "a.c"',
      'en: "d" has placeholders that differ from fr',
    ]);
  });

  it('holds the texts the specification requires, word for word', () => {
    expect(fr.auth.errors).toMatchObject({
      invalidCredentials: 'Email ou mot de passe incorrect',
      userAlreadyExists: 'Un compte existe déjà avec cet email',
      generic: 'Une erreur est survenue. Veuillez réessayer.',
    });
    expect(en.auth.errors).toMatchObject({
      invalidCredentials: 'Invalid email or password',
      userAlreadyExists: 'An account already exists with this email',
      generic: 'An error occurred. Please try again.',
    });
    expect(en.chat.placeholder).toBe('Ask your question...');
    expect(en.chat.welcome).toBe('Hello! How can I help you?');
    expect(en.locations.searchPlaceholder).toBe('Search for a location...');
    expect(en.creatives.title).toBe('My Creatives');
    expect(en.creatives.new).toBe('New Creative');
    expect(en.locations.title).toBe('My Locations');
    expect(fr.locations.searchPlaceholder).toBe('Rechercher un emplacement...');
    expect(fr.apiErrors.unsupported_media_type).toBe("Ce fichier n'est pas une image JPEG, PNG ou WebP.");
    expect(en.apiErrors.unsupported_media_type).toBe('This file is not a JPEG, PNG or WebP image.');
    expect(fr.apiErrors.generic).toBe(fr.auth.errors.generic);
    expect([fr.quadEditor.corners.topLeft, en.quadEditor.corners.topLeft]).toEqual(['Coin haut gauche', 'Top-left corner']);
    expect([en.simulation.title, fr.simulation.title]).toEqual(['My Simulations', 'Mes simulations']);
    expect([en.simulation.configuration, en.simulation.adjustments, en.simulation.preview]).toEqual(['Configuration', 'Adjustments', 'Preview']);
    expect([en.nav.creatives, en.nav.locations, en.nav.simulation, en.nav.heatmap, en.nav.logout]).toEqual([
      'Creative',
      'Location',
      'Rendering',
      'Heatmap',
      'Logout',
    ]);
  });

  it('no component shows a hard-coded text (JSX text and visible attributes go through t())', () => {
    const offenders = componentSources(join(here, '..')).flatMap(findLiteralTexts);
    expect(offenders).toEqual([]);
  });

  it('the literal-text check finds JSX text and visible attributes', () => {
    const folder = mkdtempSync(join(tmpdir(), 'regard-i18n-'));
    const file = join(folder, 'bad.tsx');
    writeFileSync(file, 'export const A = () => <p title={t("x")}>Bonjour<input placeholder="Type here" /> × </p>;');
    expect(findLiteralTexts(file)).toEqual([`${file}: Bonjour`, `${file}: placeholder="Type here"`]);
  });
});

/** Every component file under `folder`, tests and test helpers excepted. */
function componentSources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : componentSources(path);
    return entry.name.endsWith('.tsx') && !entry.name.endsWith('.test.tsx') ? [path] : [];
  });
}

const VISIBLE_ATTRIBUTES = new Set(['placeholder', 'title', 'alt', 'aria-label', 'aria-description', 'label']);
const HAS_LETTER = /\p{L}/u;

/** JSX text with a letter in it, and string literals in user-visible attributes. */
function findLiteralTexts(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && HAS_LETTER.test(node.text)) {
      found.push(`${path}: ${node.text.trim()}`);
    } else if (
      ts.isJsxAttribute(node) &&
      VISIBLE_ATTRIBUTES.has(node.name.getText(source)) &&
      node.initializer &&
      ts.isStringLiteral(node.initializer) &&
      HAS_LETTER.test(node.initializer.text)
    ) {
      found.push(`${path}: ${node.name.getText(source)}="${node.initializer.text}"`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

import { describe, expect, it, vi } from 'vitest';

import { browserLanguage, changeLanguage, i18n, initialLanguage, readStoredLanguage } from './i18n';

/** The browser's preferred languages, as `navigator.languages` (and `language`) give them, for one test. */
function browserPrefers(languages: string[]) {
  vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);
  vi.spyOn(navigator, 'language', 'get').mockReturnValue(languages[0] ?? '');
}

describe('i18n', () => {
  it('defaults to French, with English as fallback', () => {
    window.localStorage.clear();
    browserPrefers([]);
    expect(readStoredLanguage()).toBeNull();
    expect(initialLanguage()).toBe('fr');
    expect(i18n.options.fallbackLng).toEqual(['en']);
  });

  it('uses the stored language and ignores unknown ones', () => {
    browserPrefers(['de-DE']);
    window.localStorage.setItem('regard-language', 'en');
    expect(readStoredLanguage()).toBe('en');
    expect(initialLanguage()).toBe('en');
    window.localStorage.setItem('regard-language', 'de');
    expect(readStoredLanguage()).toBeNull();
    expect(initialLanguage()).toBe('fr');
  });

  it('follows an English browser on a first visit, never over a choice kept', () => {
    window.localStorage.clear();
    browserPrefers(['en-GB', 'en']);
    expect(initialLanguage()).toBe('en');
    browserPrefers(['en-US']);
    expect(initialLanguage()).toBe('en');
    browserPrefers(['fr-CA', 'en-US']);
    expect(initialLanguage()).toBe('fr');
    window.localStorage.setItem('regard-language', 'fr');
    browserPrefers(['en-GB']);
    expect(initialLanguage()).toBe('fr');
  });

  it.each([
    [['en-GB'], 'en'],
    [['EN'], 'en'],
    [['de-DE', 'en-US'], 'en'],
    [['de-DE', 'fr', 'en'], 'fr'],
    [['es-ES', 'de'], 'fr'],
    [[], 'fr'],
  ])('picks from the browser languages %j: %s', (languages, expected) => {
    expect(browserLanguage(languages)).toBe(expected);
  });

  it('sets <html lang> and remembers the choice', async () => {
    await changeLanguage('en');
    expect(document.documentElement.lang).toBe('en');
    expect(window.localStorage.getItem('regard-language')).toBe('en');
    expect(i18n.t('nav.logout')).toBe('Logout');
    await changeLanguage('fr');
    expect(document.documentElement.lang).toBe('fr');
    expect(i18n.t('nav.logout')).toBe('Déconnexion');
  });
});

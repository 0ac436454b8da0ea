import { describe, expect, it } from 'vitest';

import { changeLanguage, i18n, readStoredLanguage } from './i18n';

describe('i18n', () => {
  it('defaults to French, with English as fallback', () => {
    window.localStorage.clear();
    expect(readStoredLanguage()).toBe('fr');
    expect(i18n.options.fallbackLng).toEqual(['en']);
  });

  it('uses the stored language and ignores unknown ones', () => {
    window.localStorage.setItem('regard-language', 'en');
    expect(readStoredLanguage()).toBe('en');
    window.localStorage.setItem('regard-language', 'de');
    expect(readStoredLanguage()).toBe('fr');
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

// Typed translation keys: `t('auth.erors.generic')` is a compile error.
import type fr from '@/locales/fr.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof fr };
  }
}

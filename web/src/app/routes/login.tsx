import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { LanguageSwitch } from '@/components/language-switch';
import { LoginForm } from '@/features/auth/components/login-form';
import { ThemeSwitch } from '@/features/theme/components/theme-switch';

/** The only screen a signed-out visitor sees. */
export function LoginScreen() {
  const { t } = useTranslation();
  const appName = t('app.name');
  useEffect(() => {
    document.title = appName;
  }, [appName]);

  return (
    <div className="login">
      <main className="login__card">
        <p className="brand brand--large">{appName}</p>
        <p className="login__tagline">{t('app.tagline')}</p>
        <LoginForm />
      </main>
      <footer className="login__footer" aria-label={t('settings.label')}>
        <LanguageSwitch />
        <ThemeSwitch />
      </footer>
    </div>
  );
}

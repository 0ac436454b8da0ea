import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';

import { signInWithProvider, type AuthErrorKey } from '../api/auth-actions';
import { enabledProviders, providerLabel, type AuthSettings } from '../api/settings';

/** The address to come back to: this page, without its query (no stale `code` or `error`). */
function returnAddress(): string {
  return `${window.location.origin}${window.location.pathname}`;
}

/** "Continue with …" for every provider the server has enabled (none while settings load or fail). */
export function ProviderButtons({ settings, onError }: { settings: AuthSettings | undefined; onError: (key: AuthErrorKey) => void }) {
  const { t } = useTranslation();
  const [pending, setPending] = useState<string | null>(null);
  const providers = enabledProviders(settings);
  if (providers.length === 0) return null;

  const start = async (provider: string) => {
    setPending(provider);
    const error = await signInWithProvider(provider, returnAddress());
    // On success the browser is leaving for the provider; keep the button busy.
    if (error) {
      setPending(null);
      onError(error);
    }
  };

  return (
    <div className="providers" data-testid="providers">
      <p className="providers__divider">
        <span>{t('auth.providers.or')}</span>
      </p>
      <ul className="providers__list">
        {providers.map((provider) => (
          <li key={provider}>
            <Button
              variant="secondary"
              className="providers__button"
              disabled={pending !== null}
              aria-busy={pending === provider}
              onClick={() => void start(provider)}
              data-provider={provider}
            >
              {t('auth.providers.continueWith', { provider: providerLabel(provider) })}
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

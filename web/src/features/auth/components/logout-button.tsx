import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';

import { signOut } from '../api/auth-actions';

/**
 * Signs out; the app returns to the login screen when auth-js announces SIGNED_OUT. An icon and
 * the word: where the header is short of room, CSS keeps the icon and the word stays its name.
 */
export function LogoutButton({ className }: { className?: string }) {
  const { t } = useTranslation();
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="ghost"
      className={className}
      disabled={pending}
      title={t('nav.logout')}
      onClick={() => {
        setPending(true);
        void signOut().finally(() => setPending(false));
      }}
      data-testid="logout"
    >
      {/* An arrow leaving a door. */}
      <svg className="logout__icon" aria-hidden="true" viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4" />
        <path d="M16 17l5-5-5-5" />
        <path d="M21 12H9" />
      </svg>
      <span className="logout__label">{t('nav.logout')}</span>
    </Button>
  );
}

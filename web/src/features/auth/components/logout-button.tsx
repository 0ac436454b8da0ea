import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';

import { signOut } from '../api/auth-actions';

/** Signs out; the app returns to the login screen when auth-js announces SIGNED_OUT. */
export function LogoutButton({ className }: { className?: string }) {
  const { t } = useTranslation();
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="ghost"
      className={className}
      disabled={pending}
      onClick={() => {
        setPending(true);
        void signOut().finally(() => setPending(false));
      }}
      data-testid="logout"
    >
      {t('nav.logout')}
    </Button>
  );
}

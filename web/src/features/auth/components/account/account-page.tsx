import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Spinner } from '@/components/ui/spinner';

import { userQuery } from '../../api/mfa';
import { useAuth } from '../../auth-context';

import { BrandingSection } from './branding-section';
import { EmailSection } from './email-section';
import { MfaSection } from './mfa-section';
import { PasswordSection } from './password-section';
import { ProvidersSection } from './providers-section';
import { SessionsSection } from './sessions-section';
import { StorageSection } from './storage-section';

/** The account's sections; the user is read from the server (fresh e-mail and identities). */
export function AccountSections() {
  const auth = useAuth();
  const user = useQuery(userQuery());
  const { t } = useTranslation();
  if (user.isPending) return <Spinner label={t('app.loading')} />;
  if (user.isError) return <QueryError error={user.error} onRetry={() => void user.refetch()} />;
  const current = user.data ?? auth.user;
  if (!current) return null;
  return (
    <div className="account">
      <EmailSection user={current} />
      <PasswordSection user={current} />
      <MfaSection />
      <ProvidersSection user={current} />
      <SessionsSection />
      <StorageSection />
      <BrandingSection />
    </div>
  );
}

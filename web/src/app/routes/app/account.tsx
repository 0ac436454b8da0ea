import { useTranslation } from 'react-i18next';

import { ContentLayout } from '@/components/layouts/content-layout';
import { AccountSections } from '@/features/auth/components/account/account-page';

export default function AccountRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('account.title')}>
      <AccountSections />
    </ContentLayout>
  );
}

import { useTranslation } from 'react-i18next';

import { ContentLayout } from '@/components/layouts/content-layout';
import { HelpIndex } from '@/features/help/components/help-index';

export default function HelpRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('help.title')}>
      <HelpIndex />
    </ContentLayout>
  );
}

import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';
import { CreativesEmpty } from '@/features/creatives/components/creatives-empty';
import { NewCreativeButton } from '@/features/creatives/components/new-creative-button';

export default function CreativesRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('creatives.title')} actions={<NewCreativeButton />}>
      <CreativesEmpty />
      <ComingSoon />
    </ContentLayout>
  );
}

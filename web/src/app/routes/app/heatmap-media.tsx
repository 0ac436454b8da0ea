import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';

export default function HeatmapMediaRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('heatmap.mediaTitle')}>
      <ComingSoon />
    </ContentLayout>
  );
}

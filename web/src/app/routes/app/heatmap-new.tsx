import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';

export default function HeatmapNewRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('heatmap.newTitle')}>
      <ComingSoon />
    </ContentLayout>
  );
}

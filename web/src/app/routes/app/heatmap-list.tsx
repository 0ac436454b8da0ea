import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';
import { NewHeatmapLink } from '@/features/heatmap/components/new-heatmap-link';

export default function HeatmapListRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('heatmap.listTitle')} actions={<NewHeatmapLink />}>
      <ComingSoon />
    </ContentLayout>
  );
}

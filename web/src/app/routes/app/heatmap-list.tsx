import { useTranslation } from 'react-i18next';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HeatmapList } from '@/features/heatmap/components/heatmap-list';
import { NewHeatmapLink } from '@/features/heatmap/components/new-heatmap-link';

export default function HeatmapListRoute() {
  const { t } = useTranslation();
  // Statuses and scores of heatmaps still running update live.
  useHeatmapLiveConnection();
  return (
    <ContentLayout title={t('heatmap.listTitle')} actions={<NewHeatmapLink />}>
      <HeatmapList />
    </ContentLayout>
  );
}

import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { heatmapQueryOptions } from '@/features/heatmap/api/heatmaps';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HeatmapCompare } from '@/features/heatmap/components/heatmap-compare';

/** `/heatmap/results/:id/compare`: the heatmap's images side by side. */
export default function HeatmapCompareRoute() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  useHeatmapLiveConnection();
  const { data } = useQuery(heatmapQueryOptions(id));
  return (
    <ContentLayout title={data ? t('heatmap.compare.title', { name: data.name }) : t('heatmap.resultsTitle')}>
      <p>
        <Link to={`/heatmap/results/${encodeURIComponent(id)}`}>{t('heatmap.compare.back')}</Link>
      </p>
      <HeatmapCompare key={id} id={id} />
    </ContentLayout>
  );
}

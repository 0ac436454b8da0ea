import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { heatmapQueryOptions } from '@/features/heatmap/api/heatmaps';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HeatmapResults } from '@/features/heatmap/components/heatmap-results';

import { SubjectReview } from '@/app/subject-review';

/**
 * `/heatmap/results/:id`: the heatmap's name as the title (a generic one until it is known), its
 * results, then its comments and approval.
 */
export default function HeatmapResultsRoute() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  useHeatmapLiveConnection();
  const { data } = useQuery(heatmapQueryOptions(id));
  return (
    <ContentLayout title={data?.name ?? t('heatmap.resultsTitle')}>
      <p>
        <Link to="/heatmap">{t('heatmap.back')}</Link>
      </p>
      <HeatmapResults key={id} id={id} />
      {data ? <SubjectReview key={`review-${id}`} subject={{ kind: 'heatmap', id: data.id }} /> : null}
    </ContentLayout>
  );
}

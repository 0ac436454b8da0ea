import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { MediaHeatmapView } from '@/features/heatmap/components/media-heatmap';

/** `/heatmap/:mediaId`: the latest heatmap of one image, or a button to make one. */
export default function HeatmapMediaRoute() {
  const { t } = useTranslation();
  const { mediaId = '' } = useParams();
  useHeatmapLiveConnection();
  return (
    <ContentLayout title={t('heatmap.mediaTitle')}>
      <MediaHeatmapView key={mediaId} mediaId={mediaId} />
    </ContentLayout>
  );
}

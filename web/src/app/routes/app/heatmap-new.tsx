import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HeatmapForm } from '@/features/heatmap/components/heatmap-form';

export default function HeatmapNewRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Opened here already, so the results page finds the stream live and misses no event.
  useHeatmapLiveConnection();
  return (
    <ContentLayout title={t('heatmap.newTitle')}>
      <p>
        <Link to="/heatmap">{t('heatmap.back')}</Link>
      </p>
      <HeatmapForm onCreated={(heatmap) => void navigate(`/heatmap/results/${encodeURIComponent(heatmap.id)}`)} />
    </ContentLayout>
  );
}

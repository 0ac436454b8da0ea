import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CannotChange } from '@/components/read-only-notice';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HeatmapForm } from '@/features/heatmap/components/heatmap-form';
import { useWorkspace } from '@/lib/workspace';

export default function HeatmapNewRoute() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { canEdit } = useWorkspace();
  // Opened here already, so the results page finds the stream live and misses no event.
  useHeatmapLiveConnection();
  return (
    <ContentLayout title={t('heatmap.newTitle')}>
      <p>
        <Link to="/heatmap">{t('heatmap.back')}</Link>
      </p>
      {canEdit ? (
        <HeatmapForm onCreated={(heatmap) => void navigate(`/heatmap/results/${encodeURIComponent(heatmap.id)}`)} />
      ) : (
        <CannotChange />
      )}
    </ContentLayout>
  );
}

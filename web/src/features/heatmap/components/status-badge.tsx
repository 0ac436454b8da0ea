import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';

import type { HeatmapStatus } from '../api/heatmaps';

/** The status of a heatmap or of one of its items, as a coloured pill. */
export function StatusBadge({ status }: { status: HeatmapStatus }) {
  const { t } = useTranslation();
  return (
    <span className={cn('hm-badge', `hm-badge--${status}`)} data-testid="heatmap-status" data-status={status}>
      {t(`heatmap.status.${status}`)}
    </span>
  );
}

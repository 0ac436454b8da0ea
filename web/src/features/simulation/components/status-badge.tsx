import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';

import type { SimulationStatus } from '../api/simulations';

/** The status of a simulation as a coloured pill (the heatmap pills' colours). */
export function SimulationStatusBadge({ status }: { status: SimulationStatus }) {
  const { t } = useTranslation();
  return (
    <span className={cn('hm-badge', `hm-badge--${status === 'rendering' ? 'processing' : status}`)} data-testid="simulation-status" data-status={status}>
      {t(`simulation.status.${status}`)}
    </span>
  );
}

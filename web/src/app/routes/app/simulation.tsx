import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';
import { SimulationSections } from '@/features/simulation/components/simulation-sections';

export default function SimulationRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('simulation.title')}>
      <ComingSoon />
      <SimulationSections />
    </ContentLayout>
  );
}

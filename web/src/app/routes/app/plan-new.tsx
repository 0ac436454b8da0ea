import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { PlanForm } from '@/features/plans/components/plan-form';

/** `/plans/new?locations=<id>,<id>`: a new plan, with the locations list's selection when it brings one. */
export default function PlanNewRoute() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const ids = (params.get('locations') ?? '').split(',').filter(Boolean).slice(0, 200);
  return (
    <ContentLayout
      title={t('plans.newTitle')}
      actions={
        <Link to="/plans" className="ui-button ui-button--secondary ui-button--md">
          {t('plans.back')}
        </Link>
      }
    >
      <PlanForm initialLocationIds={ids} />
    </ContentLayout>
  );
}

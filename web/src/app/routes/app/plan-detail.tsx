import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { planQueryOptions } from '@/features/plans/api/plans';
import { PlanView } from '@/features/plans/components/plan-view';

export default function PlanDetailRoute() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const plan = useQuery(planQueryOptions(id));
  return (
    <ContentLayout
      title={plan.data?.name ?? t('plans.title')}
      actions={
        <Link to="/plans" className="ui-button ui-button--secondary ui-button--md">
          {t('plans.back')}
        </Link>
      }
    >
      <PlanView id={id} />
    </ContentLayout>
  );
}

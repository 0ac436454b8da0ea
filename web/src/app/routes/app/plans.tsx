import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { PlansList } from '@/features/plans/components/plans-list';
import { useWorkspace } from '@/lib/workspace';

export default function PlansRoute() {
  const { t } = useTranslation();
  const { canEdit } = useWorkspace();
  return (
    <ContentLayout
      title={t('plans.title')}
      actions={
        canEdit ? (
          <Link to="/plans/new" className="ui-button ui-button--primary ui-button--md" data-testid="new-plan">
            {t('plans.new')}
          </Link>
        ) : null
      }
    >
      <p className="page-intro">{t('plans.intro')}</p>
      <PlansList />
    </ContentLayout>
  );
}

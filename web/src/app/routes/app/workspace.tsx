import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useAuth } from '@/features/auth/auth-context';
import { WorkspaceSettings } from '@/features/workspaces/components/workspace-settings';

import { paths } from '@/app/router';

/** `/workspace`: the members and settings of the current workspace, with the way to its activity. */
export default function WorkspaceRoute() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <ContentLayout
      title={t('workspace.settings.title')}
      actions={
        <Link className="ui-button ui-button--secondary ui-button--sm" to={paths.workspaceActivity} data-testid="activity-link">
          {t('activity.link')}
        </Link>
      }
    >
      <WorkspaceSettings userId={user?.id ?? ''} />
    </ContentLayout>
  );
}

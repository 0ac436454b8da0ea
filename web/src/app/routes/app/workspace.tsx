import { useTranslation } from 'react-i18next';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useAuth } from '@/features/auth/auth-context';
import { WorkspaceSettings } from '@/features/workspaces/components/workspace-settings';

/** `/workspace`: the members and settings of the current workspace. */
export default function WorkspaceRoute() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <ContentLayout title={t('workspace.settings.title')}>
      <WorkspaceSettings userId={user?.id ?? ''} />
    </ContentLayout>
  );
}

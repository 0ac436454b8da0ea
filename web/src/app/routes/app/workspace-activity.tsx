import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useAuth } from '@/features/auth/auth-context';
import { ActivityFeed } from '@/features/workspaces/components/activity-feed';
import type { LinkedSubject } from '@/features/workspaces/lib/activity';

import { paths } from '@/app/router';

/** Where a line of activity about a subject of the library leads. */
function subjectPath(type: LinkedSubject, id: string): string {
  switch (type) {
    case 'creative':
      return paths.creative(id);
    case 'location':
      return paths.location(id);
    case 'simulation':
      return paths.simulationOf(id);
    case 'heatmap':
      return paths.heatmapResults(id);
  }
}

/** `/workspace/activity`: what was done in the current workspace (filters in the address). */
export default function WorkspaceActivityRoute() {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <ContentLayout
      title={t('activity.title')}
      actions={
        <Link className="ui-button ui-button--secondary ui-button--sm" to={paths.workspace} data-testid="workspace-settings-from-activity">
          {t('workspace.switcher.settings')}
        </Link>
      }
    >
      <ActivityFeed userId={user?.id ?? ''} pathOf={subjectPath} />
    </ContentLayout>
  );
}

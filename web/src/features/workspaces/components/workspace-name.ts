import type { TFunction } from 'i18next';

import type { Workspace } from '@/lib/workspace';

/** A workspace's name as shown: the personal one is named in the reader's language ("Mon espace"). */
export function workspaceName(t: TFunction, workspace: Pick<Workspace, 'name' | 'personal'>): string {
  return workspace.personal ? t('workspace.personal') : workspace.name;
}

import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';
import type { WorkspaceRole } from '@/lib/workspace';

/** A member's role as a small badge: "Propriétaire", "Éditeur", "Lecteur". */
export function RoleBadge({ role, className }: { role: WorkspaceRole; className?: string }) {
  const { t } = useTranslation();
  return (
    <span className={cn('badge', `badge--role-${role}`, className)} data-testid="role-badge" data-role={role}>
      {t(`workspace.roles.${role}`)}
    </span>
  );
}

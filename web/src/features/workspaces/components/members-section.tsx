import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/error-message';
import { useToast } from '@/lib/toast';
import { WORKSPACE_ROLES, type Workspace, type WorkspaceRole } from '@/lib/workspace';

import { membersQueryOptions, useChangeRole, useRemoveMember, type WorkspaceMember } from '../api/workspaces';

import { RoleBadge } from './role-badge';

/**
 * The workspace's members, oldest first, with their roles. An owner changes a role with the
 * select beside each member and removes one after a confirmation; the others read the list.
 * The user's own line says "you" (leaving is the last section of the page).
 */
export function MembersSection({ workspace, userId, isOwner }: { workspace: Workspace; userId: string; isOwner: boolean }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const members = useQuery(membersQueryOptions(workspace.id));
  const changeRole = useChangeRole(workspace.id);
  const remove = useRemoveMember(workspace.id);
  const toast = useToast();
  const [removing, setRemoving] = useState<WorkspaceMember | null>(null);

  const label = (member: WorkspaceMember) => member.email ?? t('workspace.members.noEmail');
  const items = members.data?.items ?? [];
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="workspace-members">
      <h2 id={titleId} className="panel__title">
        {t('workspace.members.title')}
      </h2>
      {members.isPending ? <Spinner /> : null}
      {members.isError ? <QueryError error={members.error} onRetry={() => void members.refetch()} /> : null}
      {items.length > 0 ? (
        <ul className="account-list" aria-labelledby={titleId}>
          {items.map((member) => {
            const me = member.user_id === userId;
            return (
              <li key={member.user_id} className="account-list__item ws-member" data-testid="member-row" data-email={member.email ?? ''}>
                <div className="factor-row__text">
                  <span className="account-list__name">{label(member)}</span>
                  {me ? <span className="account-list__meta">{t('workspace.members.you')}</span> : null}
                </div>
                {isOwner ? (
                  <div className="ws-member__controls">
                    <Select
                      className="ws-member__role"
                      value={member.role}
                      aria-label={t('workspace.members.roleOf', { name: label(member) })}
                      disabled={changeRole.isPending}
                      onChange={(event) => {
                        const role = event.target.value as WorkspaceRole;
                        changeRole.mutate(
                          { userId: member.user_id, role },
                          { onSuccess: () => toast.show(t('workspace.members.roleChanged', { name: label(member), role: t(`workspace.roles.${role}`) })) },
                        );
                      }}
                      data-testid="member-role"
                    >
                      {WORKSPACE_ROLES.map((role) => (
                        <option key={role} value={role}>
                          {t(`workspace.roles.${role}`)}
                        </option>
                      ))}
                    </Select>
                    {me ? (
                      <span className="ws-member__remove" aria-hidden="true" />
                    ) : (
                      <Button
                        variant="ghost"
                        size="sm"
                        className="ws-member__remove"
                        onClick={() => {
                          remove.reset();
                          setRemoving(member);
                        }}
                        aria-label={t('workspace.members.removeNamed', { name: label(member) })}
                        data-testid="remove-member"
                      >
                        {t('workspace.members.remove')}
                      </Button>
                    )}
                  </div>
                ) : (
                  <RoleBadge role={member.role} />
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {changeRole.isError ? <Banner variant="error">{errorMessage(t, i18n.language, changeRole.error)}</Banner> : null}
      {isOwner ? <p className="field__hint">{t('workspace.members.rolesHelp')}</p> : null}
      {removing ? (
        <ConfirmDialog
          title={t('workspace.members.removeTitle')}
          confirmLabel={t('workspace.members.remove')}
          busyLabel={t('workspace.members.removing')}
          busy={remove.isPending}
          error={remove.isError ? errorMessage(t, i18n.language, remove.error) : null}
          onCancel={() => setRemoving(null)}
          onConfirm={() =>
            remove.mutate(removing.user_id, {
              onSuccess: () => {
                toast.show(t('workspace.members.removed', { name: label(removing) }));
                setRemoving(null);
              },
            })
          }
        >
          <p>{t('workspace.members.removeBody', { name: label(removing), workspace: workspace.name })}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog, Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { fieldErrorKey, isApiError } from '@/lib/api';
import { errorMessage } from '@/lib/error-message';
import { useToast } from '@/lib/toast';
import { useWorkspace, type Workspace } from '@/lib/workspace';

import { useDeleteWorkspace, useRemoveMember, useRenameWorkspace } from '../api/workspaces';
import { WORKSPACE_PATH } from '../lib/address';

import { CreateWorkspaceDialog, MAX_WORKSPACE_NAME } from './create-workspace-dialog';
import { InvitationsSection } from './invitations-section';
import { MembersSection } from './members-section';
import { RoleBadge } from './role-badge';

/**
 * The members and settings of the current workspace. Everyone sees the name, the members and
 * their roles, and can leave; an owner renames, changes roles, removes members, invites and
 * deletes. The personal workspace has none of this: the page says so and offers to create one.
 */
export function WorkspaceSettings({ userId }: { userId: string }) {
  const { current, ready, isOwner } = useWorkspace();
  if (current.personal) return <PersonalWorkspace />;
  if (!ready) return <Spinner />;
  return (
    <div className="account ws-settings" data-testid="workspace-settings">
      <GeneralSection workspace={current} isOwner={isOwner} />
      <MembersSection workspace={current} userId={userId} isOwner={isOwner} />
      {isOwner ? <InvitationsSection workspace={current} /> : null}
      <LeaveSection workspace={current} userId={userId} />
      {isOwner ? <DeleteSection workspace={current} /> : null}
    </div>
  );
}

function PersonalWorkspace() {
  const { t } = useTranslation();
  const titleId = useId();
  const { switchTo } = useWorkspace();
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  return (
    <div className="account ws-settings">
      <section className="panel account-section" aria-labelledby={titleId} data-testid="workspace-personal">
        <h2 id={titleId} className="panel__title">
          {t('workspace.personal')}
        </h2>
        <p className="account-section__muted">{t('workspace.settings.personalBody')}</p>
        <Button onClick={() => setCreating(true)} data-testid="create-workspace-from-settings">
          {t('workspace.switcher.create')}
        </Button>
      </section>
      {creating ? (
        <CreateWorkspaceDialog
          onClose={() => setCreating(false)}
          onCreated={(workspace) => {
            setCreating(false);
            toast.show(t('workspace.create.done', { name: workspace.name }));
            switchTo(workspace.id, { to: WORKSPACE_PATH });
          }}
        />
      ) : null}
    </div>
  );
}

/** The name (an owner renames it) and the user's role. */
function GeneralSection({ workspace, isOwner }: { workspace: Workspace; isOwner: boolean }) {
  const { t, i18n } = useTranslation();
  const ids = { title: useId(), name: useId() };
  const [name, setName] = useState(workspace.name);
  const rename = useRenameWorkspace(workspace.id);
  const toast = useToast();
  const fieldCode = isApiError(rename.error) ? rename.error.fields.name : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    rename.mutate(name.trim(), { onSuccess: (saved) => toast.show(t('workspace.settings.renamed', { name: saved.name })) });
  };

  return (
    <section className="panel account-section" aria-labelledby={ids.title} data-testid="workspace-general">
      <h2 id={ids.title} className="panel__title">
        {t('workspace.settings.general')}
      </h2>
      {isOwner ? (
        <form className="account-form" onSubmit={submit} noValidate data-testid="rename-workspace-form">
          <div className="field">
            <Label htmlFor={ids.name}>{t('workspace.fields.name')}</Label>
            <Input
              id={ids.name}
              value={name}
              required
              maxLength={MAX_WORKSPACE_NAME}
              aria-invalid={fieldCode ? true : undefined}
              aria-describedby={fieldCode ? `${ids.name}-error` : undefined}
              onChange={(event) => setName(event.target.value)}
              data-testid="rename-workspace-input"
            />
            {fieldCode ? (
              <p id={`${ids.name}-error`} className="form-error">
                {t(fieldErrorKey(fieldCode))}
              </p>
            ) : null}
          </div>
          {rename.isError && !fieldCode ? <Banner variant="error">{errorMessage(t, i18n.language, rename.error)}</Banner> : null}
          <div className="form-actions">
            <Button type="submit" disabled={rename.isPending || name.trim() === '' || name.trim() === workspace.name}>
              {rename.isPending ? t('common.saving') : t('workspace.settings.rename')}
            </Button>
          </div>
        </form>
      ) : (
        <p className="account-section__value" data-testid="workspace-name">
          {workspace.name}
        </p>
      )}
      <p className="ws-role-line">
        <span>{t('workspace.settings.yourRole')}</span> <RoleBadge role={workspace.role} />
      </p>
      <p className="account-section__muted">{t(`workspace.roleHelp.${workspace.role}`)}</p>
    </section>
  );
}

/** Leaving: the user's access ends at once; coming back takes a new invitation. */
function LeaveSection({ workspace, userId }: { workspace: Workspace; userId: string }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const { switchTo } = useWorkspace();
  const leave = useRemoveMember(workspace.id, { leaving: true });
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="workspace-leave">
      <h2 id={titleId} className="panel__title">
        {t('workspace.leave.title')}
      </h2>
      <p className="account-section__muted">{t('workspace.leave.intro')}</p>
      <Button
        variant="secondary"
        onClick={() => {
          leave.reset();
          setConfirming(true);
        }}
        data-testid="leave-workspace"
      >
        {t('workspace.leave.button')}
      </Button>
      {confirming ? (
        <ConfirmDialog
          title={t('workspace.leave.confirmTitle', { name: workspace.name })}
          confirmLabel={t('workspace.leave.button')}
          busyLabel={t('workspace.leave.leaving')}
          busy={leave.isPending}
          error={leave.isError ? errorMessage(t, i18n.language, leave.error) : null}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            leave.mutate(userId, {
              onSuccess: () => {
                toast.show(t('workspace.leave.done', { name: workspace.name }));
                switchTo('', { to: '/' });
              },
            })
          }
        >
          <p>{t('workspace.leave.confirmBody')}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Deleting the workspace and its whole library, for every member: the name must be typed to confirm. */
function DeleteSection({ workspace }: { workspace: Workspace }) {
  const { t, i18n } = useTranslation();
  const ids = { title: useId(), typed: useId(), body: useId() };
  const { switchTo } = useWorkspace();
  const remove = useDeleteWorkspace(workspace.id);
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const matches = typed.trim() === workspace.name.trim();
  const close = () => {
    setConfirming(false);
    setTyped('');
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!matches) return;
    remove.mutate(undefined, {
      onSuccess: () => {
        toast.show(t('workspace.delete.done', { name: workspace.name }));
        switchTo('', { to: '/' });
      },
    });
  };
  return (
    <section className="panel account-section ws-danger" aria-labelledby={ids.title} data-testid="workspace-delete">
      <h2 id={ids.title} className="panel__title">
        {t('workspace.delete.title')}
      </h2>
      <p className="account-section__muted">{t('workspace.delete.intro')}</p>
      <Button
        variant="danger"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
        data-testid="delete-workspace"
      >
        {t('workspace.delete.button')}
      </Button>
      {confirming ? (
        <Dialog role="alertdialog" title={t('workspace.delete.confirmTitle', { name: workspace.name })} onClose={close} describedBy={ids.body}>
          <form onSubmit={submit} noValidate data-testid="delete-workspace-form">
            <p id={ids.body}>{t('workspace.delete.confirmBody')}</p>
            <div className="field">
              <Label htmlFor={ids.typed}>{t('workspace.delete.typeName', { name: workspace.name })}</Label>
              <Input
                id={ids.typed}
                value={typed}
                autoComplete="off"
                spellCheck={false}
                onChange={(event) => setTyped(event.target.value)}
                data-testid="delete-workspace-name"
              />
            </div>
            {remove.isError ? <Banner variant="error">{errorMessage(t, i18n.language, remove.error)}</Banner> : null}
            <div className="form-actions">
              <Button type="submit" variant="danger" disabled={!matches || remove.isPending} data-testid="confirm-delete-workspace">
                {remove.isPending ? t('common.deleting') : t('workspace.delete.confirm')}
              </Button>
              <Button variant="secondary" onClick={close}>
                {t('common.cancel')}
              </Button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </section>
  );
}

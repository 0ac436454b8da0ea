import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { fieldErrorKey, isApiError } from '@/lib/api';
import { formatDateTime } from '@/lib/dates';
import { errorMessage } from '@/lib/error-message';
import { useToast } from '@/lib/toast';
import { WORKSPACE_ROLES, type Workspace, type WorkspaceRole } from '@/lib/workspace';

import { invitationsQueryOptions, useInvite, useResendInvitation, useRevokeInvitation } from '../api/workspaces';
import { isExpired } from '../lib/invitations';

import { RoleBadge } from './role-badge';

/**
 * An owner's view of the invitations: the form that sends one (an address and a role), then
 * those waiting for an answer with their expiry ("expired" once past), each of which can be
 * sent again (a new link, valid seven days) or revoked.
 */
export function InvitationsSection({ workspace }: { workspace: Workspace }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const invitations = useQuery(invitationsQueryOptions(workspace.id));
  const resend = useResendInvitation(workspace.id);
  const revoke = useRevokeInvitation(workspace.id);
  const toast = useToast();
  // The time the section opened: what is past it shows as expired.
  const [now] = useState(() => Date.now());
  const language = i18n.language;
  const failure = resend.error ?? revoke.error;

  const items = invitations.data?.items ?? [];
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="workspace-invitations">
      <h2 id={titleId} className="panel__title">
        {t('workspace.invitations.title')}
      </h2>
      <InviteForm workspace={workspace} />
      <h3 className="ws-subtitle">{t('workspace.invitations.pending')}</h3>
      {invitations.isPending ? <Spinner /> : null}
      {invitations.isError ? <QueryError error={invitations.error} onRetry={() => void invitations.refetch()} /> : null}
      {invitations.isSuccess && items.length === 0 ? <p className="account-section__muted">{t('workspace.invitations.none')}</p> : null}
      {items.length > 0 ? (
        <ul className="account-list" aria-label={t('workspace.invitations.pending')}>
          {items.map((invitation) => {
            const expired = isExpired(invitation, now);
            return (
              <li key={invitation.id} className="account-list__item" data-testid="invitation-row" data-email={invitation.email}>
                <div className="factor-row__text">
                  <span className="account-list__name">{invitation.email}</span>
                  <span className="account-list__meta">
                    {expired ? (
                      <span className="badge badge--expired" data-testid="invitation-expired">
                        {t('workspace.invitations.expired')}
                      </span>
                    ) : (
                      t('workspace.invitations.expires', { date: formatDateTime(invitation.expires_at, language) })
                    )}
                  </span>
                </div>
                <RoleBadge role={invitation.role} />
                <div className="ws-row-actions">
                  <Button
                    variant="secondary"
                    size="sm"
                    disabled={resend.isPending}
                    onClick={() =>
                      resend.mutate(invitation.id, {
                        onSuccess: () => toast.show(t('workspace.invitations.resent', { email: invitation.email })),
                      })
                    }
                    aria-label={t('workspace.invitations.resendNamed', { email: invitation.email })}
                    data-testid="resend-invitation"
                  >
                    {t('workspace.invitations.resend')}
                  </Button>
                  <Button
                    variant="ghost"
                    size="sm"
                    disabled={revoke.isPending}
                    onClick={() =>
                      revoke.mutate(invitation.id, {
                        onSuccess: () => toast.show(t('workspace.invitations.revoked', { email: invitation.email })),
                      })
                    }
                    aria-label={t('workspace.invitations.revokeNamed', { email: invitation.email })}
                    data-testid="revoke-invitation"
                  >
                    {t('workspace.invitations.revoke')}
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      ) : null}
      {failure ? <Banner variant="error">{errorMessage(t, language, failure)}</Banner> : null}
    </section>
  );
}

/** An address and a role; the server mails the link. */
function InviteForm({ workspace }: { workspace: Workspace }) {
  const { t, i18n } = useTranslation();
  const ids = { email: useId(), role: useId() };
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('editor');
  const invite = useInvite(workspace.id);
  const toast = useToast();
  const fieldCode = isApiError(invite.error) ? invite.error.fields.email : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    invite.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (sent) => {
          toast.show(t('workspace.invitations.sent', { email: sent.email }));
          setEmail('');
        },
      },
    );
  };

  return (
    <form className="ws-invite" onSubmit={submit} noValidate data-testid="invite-form">
      <div className="field ws-invite__email">
        <Label htmlFor={ids.email}>{t('workspace.invitations.email')}</Label>
        <Input
          id={ids.email}
          type="email"
          autoComplete="off"
          value={email}
          required
          aria-invalid={fieldCode ? true : undefined}
          aria-describedby={fieldCode ? `${ids.email}-error` : undefined}
          onChange={(event) => setEmail(event.target.value)}
          data-testid="invite-email"
        />
        {fieldCode ? (
          <p id={`${ids.email}-error`} className="form-error">
            {t(fieldErrorKey(fieldCode))}
          </p>
        ) : null}
      </div>
      <div className="field ws-invite__role">
        <Label htmlFor={ids.role}>{t('workspace.invitations.role')}</Label>
        <Select id={ids.role} value={role} onChange={(event) => setRole(event.target.value as WorkspaceRole)} data-testid="invite-role">
          {WORKSPACE_ROLES.map((value) => (
            <option key={value} value={value}>
              {t(`workspace.roles.${value}`)}
            </option>
          ))}
        </Select>
      </div>
      <Button type="submit" className="ws-invite__submit" disabled={invite.isPending || email.trim() === ''} data-testid="invite-submit">
        {invite.isPending ? t('workspace.invitations.sending') : t('workspace.invitations.send')}
      </Button>
      <p className="field__hint ws-invite__hint">{t(`workspace.roleHelp.${role}`)}</p>
      {invite.isError && !fieldCode ? (
        <Banner variant="error" className="ws-invite__error">
          {errorMessage(t, i18n.language, invite.error)}
        </Banner>
      ) : null}
    </form>
  );
}

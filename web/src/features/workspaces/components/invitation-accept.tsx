import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { isApiError } from '@/lib/api';
import { errorMessage } from '@/lib/error-message';
import { useToast } from '@/lib/toast';
import { useWorkspace, type Workspace } from '@/lib/workspace';

import { useAcceptInvitation, workspaceKeys } from '../api/workspaces';

export type InvitationAcceptProps = {
  token: string;
  /** The signed-in user's address (the invitation must be for it). */
  email: string;
  /** Signs out: the login screen then shows at this address, for the invited account. */
  onSignOut: () => void;
};

/** What a refusal of the invitation means for the person holding the link. */
type Refusal = 'used' | 'expired' | 'otherAccount' | 'other';

function refusal(error: unknown): Refusal {
  if (!isApiError(error)) return 'other';
  if (error.code === 'not_found') return 'used';
  if (error.code === 'invitation_expired') return 'expired';
  if (error.code === 'invitation_for_another_account') return 'otherAccount';
  return 'other';
}

/**
 * The page an invitation's link opens, signed in: "Join the workspace"; once joined, the app
 * works in that workspace and goes home. A link already used (or revoked), expired, or sent to
 * another address says so, with what to do next.
 */
export function InvitationAccept({ token, email, onSignOut }: InvitationAcceptProps) {
  const { t, i18n } = useTranslation();
  const accept = useAcceptInvitation();
  const { switchTo } = useWorkspace();
  const queryClient = useQueryClient();
  const toast = useToast();

  const join = () =>
    accept.mutate(token, {
      onSuccess: (joined) => {
        const list = queryClient.getQueryData<{ items: Workspace[] }>(workspaceKeys.list);
        const name = list?.items.find((workspace) => workspace.id === joined.workspace_id)?.name;
        const role = t(`workspace.roles.${joined.role}`);
        toast.show(name ? t('invitation.joinedNamed', { name, role }) : t('invitation.joined', { role }));
        switchTo(joined.workspace_id, { to: '/' });
      },
    });

  const kind = accept.isError ? refusal(accept.error) : null;
  const home = (
    <Link className="ui-button ui-button--secondary ui-button--md" to="/" data-testid="invitation-home">
      {t('invitation.home')}
    </Link>
  );

  return (
    <section className="invitation" aria-labelledby="invitation-title" data-testid="invitation">
      <h1 id="invitation-title" className="invitation__title">
        {t('invitation.title')}
      </h1>
      {kind === null || kind === 'other' ? (
        <>
          <p>{t('invitation.intro')}</p>
          <p className="field__hint">{t('invitation.signedInAs', { email })}</p>
          {kind === 'other' ? <Banner variant="error">{errorMessage(t, i18n.language, accept.error)}</Banner> : null}
          <div className="form-actions">
            <Button onClick={join} disabled={accept.isPending || accept.isSuccess} data-testid="accept-invitation">
              {accept.isPending || accept.isSuccess ? t('invitation.joining') : t('invitation.join')}
            </Button>
            <Link className="ui-button ui-button--ghost ui-button--md" to="/">
              {t('invitation.later')}
            </Link>
          </div>
        </>
      ) : (
        <>
          <Banner variant={kind === 'otherAccount' ? 'warning' : 'error'} data-testid={`invitation-${kind}`}>
            {kind === 'used' ? t('invitation.used') : kind === 'expired' ? t('invitation.expired') : t('invitation.otherAccount', { email })}
          </Banner>
          <div className="form-actions">
            {kind === 'otherAccount' ? (
              <Button onClick={onSignOut} data-testid="invitation-sign-out">
                {t('invitation.switchAccount')}
              </Button>
            ) : null}
            {home}
          </div>
        </>
      )}
    </section>
  );
}

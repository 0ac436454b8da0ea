import { useParams } from 'react-router';

import { signOut } from '@/features/auth/api/auth-actions';
import { useAuth } from '@/features/auth/auth-context';
import { InvitationAccept } from '@/features/workspaces/components/invitation-accept';

import { AuthCard } from './login';

/**
 * `/invitations/:token`, the link of an invitation mail. Signed out, the gate shows the login
 * screen here (sign in or sign up, then this page); signed in, "Join the workspace". Signing
 * out from here (the invitation is for another address) brings the login screen back to it.
 */
export default function InvitationRoute() {
  const { token = '' } = useParams();
  const { user } = useAuth();
  return (
    <AuthCard>
      <InvitationAccept key={token} token={token} email={user?.email ?? ''} onSignOut={() => void signOut('local')} />
    </AuthCard>
  );
}

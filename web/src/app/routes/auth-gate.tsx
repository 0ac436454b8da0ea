import { Outlet, useLocation } from 'react-router';

import { FullScreenSpinner } from '@/components/ui/spinner';
import { RESET_PASSWORD_PATH } from '@/features/auth/api/auth-actions';
import { useAuth } from '@/features/auth/auth-context';
import { INVITATION_PATH } from '@/features/workspaces/lib/address';

import { LoginScreen, MfaScreen, NewPasswordScreen } from './login';

/**
 * Spinner while the session is determined; the login screen when signed out; the code screen
 * while a second step is due; "choose a new password" after a recovery link; the app otherwise.
 */
export function AuthGate() {
  const { status, recovery } = useAuth();
  const { pathname } = useLocation();
  if (status === 'loading') return <FullScreenSpinner />;
  // An invitation's link opened signed out: sign in (or up) first, then back to the invitation.
  if (status === 'signedOut') return <LoginScreen invitation={INVITATION_PATH.test(pathname)} />;
  if (status === 'mfaRequired') return <MfaScreen />;
  if (recovery || pathname === RESET_PASSWORD_PATH) return <NewPasswordScreen />;
  return <Outlet />;
}

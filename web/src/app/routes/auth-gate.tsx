import { Outlet } from 'react-router';

import { FullScreenSpinner } from '@/components/ui/spinner';
import { useAuth } from '@/features/auth/auth-context';

import { LoginScreen } from './login';

/** Spinner while the session is determined, the login screen when signed out, the app otherwise. */
export function AuthGate() {
  const { status } = useAuth();
  if (status === 'loading') return <FullScreenSpinner />;
  if (status === 'signedOut') return <LoginScreen />;
  return <Outlet />;
}

import { QueryClientProvider, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';

import { useAuth } from '@/features/auth/auth-context';
import { AuthProvider } from '@/features/auth/auth-provider';
import { clearConversation } from '@/features/chat/lib/conversation';
import { useApplyTheme } from '@/features/theme/use-apply-theme';
import { closeLiveEvents } from '@/lib/events';
import { createQueryClient } from '@/lib/react-query';
import { useToastStore } from '@/lib/toast';
import { resetWorkspace } from '@/lib/workspace';

/**
 * Another user must never see the previous user's cached data (nor receive their live events,
 * nor read their conversation with the assistant, nor start in their workspace).
 */
function ClearCacheOnSignOut() {
  const { status } = useAuth();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (status !== 'signedOut') return;
    closeLiveEvents();
    queryClient.clear();
    clearConversation();
    resetWorkspace();
    useToastStore.getState().clear();
  }, [status, queryClient]);
  return null;
}

function ThemeSync() {
  useApplyTheme();
  return null;
}

/** Every app-wide provider, outermost first. */
export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={client}>
      <AuthProvider>
        <ThemeSync />
        <ClearCacheOnSignOut />
        {children}
      </AuthProvider>
    </QueryClientProvider>
  );
}

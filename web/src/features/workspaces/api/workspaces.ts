//! Workspaces (`/api/v1/workspaces`, `/api/v1/invitations`): query factories and mutations.
//! Everything lives under the `['workspaces']` prefix: the list, each workspace's members and
//! invitations; every mutation invalidates it. These routes name their workspace in the path,
//! so they work whatever workspace the tab is in.
import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { answer, api, type Schemas } from '@/lib/api';
import type { WorkspaceRole } from '@/lib/workspace';

export type WorkspaceMember = Schemas['WorkspaceMember'];
export type Invitation = Schemas['Invitation'];
export type Joined = Schemas['Joined'];
export type Activity = Schemas['Paged_Activity']['items'][number];
export type ActivityAction = Schemas['ActivityAction'];
export type ActivitySubject = Schemas['ActivitySubject'];

export const ACTIVITY_ACTIONS = [
  'created',
  'changed',
  'rendered',
  'exported',
  'shared',
  'deleted',
  'commented',
  'reviewed',
  'invited',
  'joined',
] as const satisfies readonly ActivityAction[];
export const ACTIVITY_SUBJECTS = [
  'creative',
  'location',
  'simulation',
  'heatmap',
  'plan',
  'media',
  'member',
  'invitation',
  'workspace',
] as const satisfies readonly ActivitySubject[];

/** What the activity page shows: every filter is optional (empty: all). */
export type ActivityFilters = { action?: ActivityAction; subject_type?: ActivitySubject; actor_id?: string };

export const workspaceKeys = {
  all: ['workspaces'] as const,
  list: ['workspaces', 'list'] as const,
  members: (id: string) => ['workspaces', id, 'members'] as const,
  invitations: (id: string) => ['workspaces', id, 'invitations'] as const,
  activity: (id: string) => ['workspaces', id, 'activity'] as const,
};

/** The user's workspaces, the personal one first. */
export function workspacesQueryOptions() {
  return queryOptions({
    queryKey: workspaceKeys.list,
    queryFn: ({ signal }) => answer(api.GET('/workspaces', { signal })),
  });
}

export function membersQueryOptions(id: string) {
  return queryOptions({
    queryKey: workspaceKeys.members(id),
    queryFn: ({ signal }) => answer(api.GET('/workspaces/{id}/members', { params: { path: { id } }, signal })),
  });
}

/** The invitations waiting for an answer (owners only), expired ones included. */
export function invitationsQueryOptions(id: string) {
  return queryOptions({
    queryKey: workspaceKeys.invitations(id),
    queryFn: ({ signal }) => answer(api.GET('/workspaces/{id}/invitations', { params: { path: { id } }, signal })),
  });
}

/** What was done in the workspace, newest first, a page at a time (`next_cursor`). */
export function activityInfiniteQueryOptions(id: string, filters: ActivityFilters = {}) {
  const { action, subject_type, actor_id } = filters;
  return infiniteQueryOptions({
    queryKey: [...workspaceKeys.activity(id), action ?? '', subject_type ?? '', actor_id ?? ''] as const,
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(
        api.GET('/workspaces/{id}/activity', {
          params: { path: { id }, query: { limit: ACTIVITY_PAGE, action, subject_type, actor_id, cursor: pageParam ?? undefined } },
          signal,
        }),
      ),
    getNextPageParam: (last) => last.next_cursor,
  });
}

/** Lines of activity per page. */
export const ACTIVITY_PAGE = 50;

/** A mutation whose success refreshes everything under `['workspaces']`. */
function useWorkspaceMutation<TVariables, TData>(mutationFn: (variables: TVariables) => Promise<TData>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
  });
}

export function useCreateWorkspace() {
  return useWorkspaceMutation((name: string) => answer(api.POST('/workspaces', { body: { name } })));
}

export function useRenameWorkspace(id: string) {
  return useWorkspaceMutation((name: string) => answer(api.PATCH('/workspaces/{id}', { params: { path: { id } }, body: { name } })));
}

/** Deletes the workspace and its whole library (the caller switches away first). */
export function useDeleteWorkspace(id: string) {
  return useMutation({
    mutationFn: () => answer(api.DELETE('/workspaces/{id}', { params: { path: { id } } })),
  });
}

export function useChangeRole(id: string) {
  return useWorkspaceMutation(({ userId, role }: { userId: string; role: WorkspaceRole }) =>
    answer(api.PATCH('/workspaces/{id}/members/{user_id}', { params: { path: { id, user_id: userId } }, body: { role } })),
  );
}

/** Removes a member (an owner), or the caller themselves (leaving: no refresh, the caller switches away). */
export function useRemoveMember(id: string, { leaving = false } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => answer(api.DELETE('/workspaces/{id}/members/{user_id}', { params: { path: { id, user_id: userId } } })),
    onSuccess: () => (leaving ? undefined : queryClient.invalidateQueries({ queryKey: workspaceKeys.all })),
  });
}

export function useInvite(id: string) {
  return useWorkspaceMutation((body: { email: string; role: WorkspaceRole }) =>
    answer(api.POST('/workspaces/{id}/invitations', { params: { path: { id } }, body })),
  );
}

export function useRevokeInvitation(id: string) {
  return useWorkspaceMutation((invitationId: string) =>
    answer(api.DELETE('/workspaces/{id}/invitations/{invitation_id}', { params: { path: { id, invitation_id: invitationId } } })),
  );
}

export function useResendInvitation(id: string) {
  return useWorkspaceMutation((invitationId: string) =>
    answer(api.POST('/workspaces/{id}/invitations/{invitation_id}/resend', { params: { path: { id, invitation_id: invitationId } } })),
  );
}

/** Accepts an invitation: the caller becomes a member (the list is refreshed before it resolves). */
export function useAcceptInvitation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (token: string) => answer(api.POST('/invitations/{token}/accept', { params: { path: { token } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: workspaceKeys.all }),
  });
}

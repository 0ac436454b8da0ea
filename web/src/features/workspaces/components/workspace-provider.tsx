//! Keeps the tab's workspace (lib/workspace.ts) valid and gives it to the app (`useWorkspace`).
//!
//! - The list (`GET /workspaces`) says the role of the current workspace: `canEdit` and
//!   `isOwner` follow it, and it is read again when the stream says the members changed
//!   (`members`), when it reconnects, and when it is refused (404: removed, or the workspace
//!   deleted).
//! - Switching forgets every cached answer of the old workspace (the pages below are remounted
//!   by the layout, keyed by the workspace), reopens the live stream and goes to the list of the
//!   section the user is in.
//! - A current workspace that is no longer in the list (or a list refused with 404) gives way to
//!   the personal one, with a toast.
//! - `?ws=<id>` in the address (lib/address.ts) switches to that workspace before the page
//!   loads; a shared workspace's item pages get the parameter, so their links can be shared.
//!   A workspace found unavailable is not followed again from a link in this tab.
//! - While a shared workspace is current the live stream stays open, so that a change of role or
//!   a removal reaches every page, not only the pages that show live work.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';

import { FullScreenSpinner } from '@/components/ui/spinner';
import { isApiError } from '@/lib/api';
import { restartLiveEvents, useLiveConnection, useLiveEventListener } from '@/lib/events';
import { toast } from '@/lib/toast';
import { DISCARD_CHANGES } from '@/lib/use-unsaved-changes';
import { useWorkspaceStore, WorkspaceContext, type SwitchOptions, type Workspace, type WorkspaceState } from '@/lib/workspace';

import { workspaceKeys, workspacesQueryOptions } from '../api/workspaces';
import { afterSwitch, isItemPage, WORKSPACE_PARAM, withWorkspaceParam } from '../lib/address';

export type WorkspaceProviderProps = {
  children: ReactNode;
  /** Called on every switch (the app forgets what belonged to the old workspace: the assistant's conversation). */
  onSwitch?: () => void;
};

export function WorkspaceProvider({ children, onSwitch }: WorkspaceProviderProps) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const storedId = useWorkspaceStore((state) => state.id);
  const refused = useWorkspaceStore((state) => state.refused);
  const left = useWorkspaceStore((state) => state.left);
  const list = useQuery(workspacesQueryOptions());
  const items = list.data?.items;
  const personal = items?.find((workspace) => workspace.personal) ?? null;
  const found = storedId === null ? personal : (items?.find((workspace) => workspace.id === storedId) ?? null);

  /** Works in `id` (null: the personal workspace) from now on, with nothing cached from before. */
  const moveTo = useCallback(
    (id: string | null) => {
      // Removing also cancels what is in flight: no answer of the old workspace lands in the new one.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== workspaceKeys.all[0] });
      useWorkspaceStore.getState().set(id);
      restartLiveEvents();
      void queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
      onSwitch?.();
    },
    [queryClient, onSwitch],
  );

  const personalId = personal?.id;
  const { pathname, search, hash } = location;
  const state: unknown = location.state;
  const named = new URLSearchParams(search).get(WORKSPACE_PARAM);
  const here = location.key;
  // The location being left by a switch: until the router has moved on, it is left alone.
  const leaving = left !== null && left === here;
  const switchTo = useCallback(
    (id: string, { to }: SwitchOptions = {}) => {
      const next = id === '' || id === personalId ? null : id;
      useWorkspaceStore.getState().leave(here);
      if (next !== useWorkspaceStore.getState().id) moveTo(next);
      // Whoever switches has asked about unsaved changes first (`hasUnsavedChanges`).
      void navigate(to ?? afterSwitch(pathname), { state: DISCARD_CHANGES });
    },
    [moveTo, navigate, pathname, personalId, here],
  );

  // Gone from the list (removed, deleted, or never a member: a link to someone else's workspace).
  const refusedList = list.isError && isApiError(list.error) && list.error.code === 'not_found';
  const missing =
    storedId !== null && ((list.isSuccess && !list.isFetching && !list.data.items.some((w) => w.id === storedId)) || refusedList);
  useEffect(() => {
    if (!missing || storedId === null) return;
    useWorkspaceStore.getState().refuse(storedId);
    useWorkspaceStore.getState().leave(here);
    moveTo(null);
    toast(t('workspace.unavailable'), { id: 'workspace-unavailable', variant: 'info' });
    // Its forms could not be saved anyway.
    void navigate(afterSwitch(pathname), { replace: true, state: DISCARD_CHANGES });
  }, [missing, storedId, here, moveTo, navigate, pathname, t]);

  // A link to the user's own personal workspace names it by its id: no header is needed for it.
  useEffect(() => {
    if (storedId !== null && storedId === personalId) useWorkspaceStore.getState().set(null);
  }, [storedId, personalId]);

  // `?ws=<id>`: that workspace, before the page asks for anything.
  const adopting = named !== null && named !== '' && !leaving && named !== (storedId ?? personalId) && !refused.includes(named);
  // Once the page switched away from is gone, a link back to it (Back) switches back.
  useEffect(() => {
    if (left !== null && !leaving) useWorkspaceStore.getState().leave(null);
  }, [left, leaving]);
  useEffect(() => {
    if (!adopting || named === null || useWorkspaceStore.getState().id === named) return;
    moveTo(named === personalId ? null : named);
  }, [adopting, named, personalId, moveTo]);

  // A shared workspace's item page carries it in its address.
  useEffect(() => {
    if (storedId === null || named !== null || leaving || !isItemPage(pathname)) return;
    void navigate({ pathname, search: withWorkspaceParam(search, storedId), hash }, { replace: true, preventScrollReset: true, state });
  }, [storedId, named, leaving, pathname, search, hash, state, navigate]);

  useLiveConnection(storedId !== null);
  useLiveEventListener((event) => {
    if (event.type === 'members' || event.type === 'workspace_unavailable' || event.type === 'ready') {
      void queryClient.invalidateQueries({ queryKey: workspaceKeys.all });
    }
  });

  const value = useMemo<WorkspaceState>(() => {
    // The personal workspace's role is known without the list: it is the user's own.
    const known = storedId === null || found !== null;
    const current: Workspace =
      found ?? (storedId === null ? { id: '', name: '', role: 'owner', personal: true } : { id: storedId, name: '', role: 'viewer', personal: false });
    return {
      current,
      workspaces: items ?? [],
      ready: found !== null,
      canEdit: known && current.role !== 'viewer',
      isOwner: known && current.role === 'owner',
      switching: leaving,
      switchTo,
    };
  }, [storedId, found, items, switchTo, leaving]);

  if (adopting) return <FullScreenSpinner />;
  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}

//! The workspace this tab works in (issue 29, docs/architecture/api.md "Workspaces").
//!
//! Every library route of `/api/v1` acts in the workspace named by the `X-Workspace-Id` header,
//! in the caller's personal one without it. The tab's choice is kept here, in sessionStorage
//! (two tabs can work in two workspaces): `null` is the personal workspace, and then no header
//! is sent. `lib/api.ts` and `lib/events.ts` read it for every request they send.
//!
//! The rest of the app reads the workspace through `useWorkspace()`: the current one, the list,
//! what the user may do there (`canEdit`, `isOwner`) and `switchTo`. The value comes from the
//! `WorkspaceProvider` (features/workspaces), which loads the list and keeps the choice valid;
//! it lives here because every feature reads it and features do not import each other.
import { createContext, useContext } from 'react';
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

import type { components } from '@/api/schema';
import { WORKSPACE_STORAGE_KEY } from '@/config/constants';

export type Workspace = components['schemas']['Workspace'];
export type WorkspaceRole = components['schemas']['WorkspaceRole'];

export const WORKSPACE_ROLES = ['owner', 'editor', 'viewer'] as const satisfies readonly WorkspaceRole[];

/** The request header that names the workspace a request acts in. */
export const WORKSPACE_HEADER = 'X-Workspace-Id';

type WorkspaceStore = {
  /** The shared workspace this tab works in; null: the personal one. */
  id: string | null;
  /** Workspaces found unavailable in this tab (a `?ws=` link is not followed to them again). */
  refused: string[];
  /**
   * The location (the router's key of it) the user switched away from: it stays on screen a
   * moment (the router moves on after the switch), and must not be shown, nor have its `?ws=`
   * followed back or added.
   */
  left: string | null;
  set: (id: string | null) => void;
  refuse: (id: string) => void;
  leave: (locationKey: string | null) => void;
};

export const useWorkspaceStore = create<WorkspaceStore>()(
  persist(
    (set) => ({
      id: null,
      refused: [],
      left: null,
      set: (id) => set({ id: id || null }),
      refuse: (id) => set((state) => (state.refused.includes(id) ? state : { refused: [...state.refused, id] })),
      leave: (left) => set({ left }),
    }),
    {
      name: WORKSPACE_STORAGE_KEY,
      version: 0,
      storage: createJSONStorage(() => window.sessionStorage),
      partialize: ({ id }) => ({ id }),
      // A hand-edited or corrupted value is the personal workspace.
      merge: (persisted, current) => {
        const id = (persisted as { id?: unknown } | undefined)?.id;
        return { ...current, id: typeof id === 'string' && id.trim() !== '' ? id : null };
      },
    },
  ),
);

/** The shared workspace this tab works in, or null for the personal one (outside React). */
export function currentWorkspaceId(): string | null {
  return useWorkspaceStore.getState().id;
}

/** The header of a request to `/api/v1`: `X-Workspace-Id` while a shared workspace is current. */
export function workspaceHeaders(): Record<string, string> {
  const id = currentWorkspaceId();
  return id ? { [WORKSPACE_HEADER]: id } : {};
}

/** Back to the personal workspace, forgetting the tab's choices (sign-out; tests). */
export function resetWorkspace() {
  useWorkspaceStore.setState({ id: null, refused: [], left: null });
}

export type SwitchOptions = {
  /** Where to go afterwards; by default the list of the section the user is in. */
  to?: string;
};

export type WorkspaceState = {
  /**
   * The workspace this tab works in. Until the list has loaded, a shared one is a stand-in
   * with its id only (`ready` is false) and the personal one has an empty id.
   */
  current: Workspace;
  /** The user's workspaces, the personal one first (empty until loaded). */
  workspaces: Workspace[];
  /** Whether the list has loaded, so `current` and the role are known. */
  ready: boolean;
  /** Whether the user may change the library here (not a viewer; false while the role is unknown). */
  canEdit: boolean;
  /** Whether the user owns the workspace (rename, members, invitations, deletion). */
  isOwner: boolean;
  /** A switch is under way: the page on screen belongs to the workspace left (show nothing of it). */
  switching: boolean;
  /**
   * Works in workspace `id` from now on (a fresh cache and live stream), then goes on to `to`,
   * leaving the page without asking: ask first if a form holds unsaved changes.
   */
  switchTo: (id: string, options?: SwitchOptions) => void;
};

/** Outside the signed-in app (a share link's page) there is no workspace and nothing to change. */
const OUTSIDE: WorkspaceState = {
  current: { id: '', name: '', role: 'viewer', personal: true },
  workspaces: [],
  ready: false,
  canEdit: false,
  isOwner: false,
  switching: false,
  switchTo: () => {},
};

export const WorkspaceContext = createContext<WorkspaceState | null>(null);

/** The current workspace and what the user may do there (see `WorkspaceState`). */
export function useWorkspace(): WorkspaceState {
  return useContext(WorkspaceContext) ?? OUTSIDE;
}

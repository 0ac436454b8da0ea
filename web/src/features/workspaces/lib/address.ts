//! Workspaces in the address bar. A shared workspace's item pages carry it as `?ws=<id>`
//! (`/creatives/:id?ws=…`), so that a copied link opens the item in the right workspace: the
//! `WorkspaceProvider` adds the parameter to those pages and switches to the workspace an
//! opened link names (when the user is a member). List pages do not carry it: they show
//! whatever workspace the tab is in.

/** The address parameter naming a workspace. */
export const WORKSPACE_PARAM = 'ws';

/** The members and settings page of the current workspace. */
export const WORKSPACE_PATH = '/workspace';

/** The sections of the library: switching workspace goes to the list of the one the user is in. */
const SECTIONS = ['/creatives', '/locations', '/simulation', '/heatmap'] as const;

/** Pages of one item of the library (not the lists, nor the pages that create one). */
const ITEM_PAGES = [
  /^\/creatives\/[^/]+$/,
  /^\/locations\/(?!new$|import$)[^/]+$/,
  /^\/simulation\/[^/]+$/,
  /^\/heatmap\/results\/[^/]+(\/compare)?$/,
  /^\/heatmap\/(?!new$|results$)[^/]+$/,
];

/** Invitation links: `/invitations/<token>`. */
export const INVITATION_PATH = /^\/invitations\/[^/]+\/?$/;

/** The library section of a path (`/creatives/abc` → `/creatives`), or null outside the library. */
export function sectionOf(pathname: string): string | null {
  return SECTIONS.find((section) => pathname === section || pathname.startsWith(`${section}/`)) ?? null;
}

/** Where switching workspace leads from `pathname`: its section's list, or the same page outside the library. */
export function afterSwitch(pathname: string): string {
  return sectionOf(pathname) ?? pathname;
}

/** Whether `pathname` shows one item of the library (and so carries the workspace). */
export function isItemPage(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return ITEM_PAGES.some((pattern) => pattern.test(path));
}

/** `search` (`?a=1`) with the workspace parameter set to `id`. */
export function withWorkspaceParam(search: string, id: string): string {
  const params = new URLSearchParams(search);
  params.set(WORKSPACE_PARAM, id);
  return `?${params.toString()}`;
}

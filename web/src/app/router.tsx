//! Route table. Every page is code-split with React.lazy; the layout shows a
//! spinner (Suspense) while a page's chunk loads.
import { lazy, Suspense, useState } from 'react';
import { createBrowserRouter, Navigate, Outlet, RouterProvider, type RouteObject } from 'react-router';

import { FullScreenSpinner } from '@/components/ui/spinner';
import { clearConversation } from '@/features/chat/lib/conversation';
import { WorkspaceProvider } from '@/features/workspaces/components/workspace-provider';

import { AppLayout } from './layouts/app-layout';
import { AuthGate } from './routes/auth-gate';
import { RouteError } from './routes/route-error';

const CreativesRoute = lazy(() => import('./routes/app/creatives'));
const CreativeDetailRoute = lazy(() => import('./routes/app/creative-detail'));
const LocationsRoute = lazy(() => import('./routes/app/locations'));
const LocationEditRoute = lazy(() => import('./routes/app/location-edit'));
const LocationsImportRoute = lazy(() => import('./routes/app/locations-import'));
const SimulationRoute = lazy(() => import('./routes/app/simulation'));
const PlansRoute = lazy(() => import('./routes/app/plans'));
const PlanNewRoute = lazy(() => import('./routes/app/plan-new'));
const PlanDetailRoute = lazy(() => import('./routes/app/plan-detail'));
const HeatmapListRoute = lazy(() => import('./routes/app/heatmap-list'));
const HeatmapNewRoute = lazy(() => import('./routes/app/heatmap-new'));
const HeatmapResultsRoute = lazy(() => import('./routes/app/heatmap-results'));
const HeatmapMediaRoute = lazy(() => import('./routes/app/heatmap-media'));
const HeatmapCompareRoute = lazy(() => import('./routes/app/heatmap-compare'));
const SharedRoute = lazy(() => import('./routes/shared'));
const AccountRoute = lazy(() => import('./routes/app/account'));
const HelpRoute = lazy(() => import('./routes/app/help'));
const HelpArticleRoute = lazy(() => import('./routes/app/help-article'));
const WorkspaceRoute = lazy(() => import('./routes/app/workspace'));
const WorkspaceActivityRoute = lazy(() => import('./routes/app/workspace-activity'));
const InvitationRoute = lazy(() => import('./routes/invitation'));
const NotFoundRoute = lazy(() => import('./routes/not-found'));

export const paths = {
  home: '/',
  creatives: '/creatives',
  creative: (id: string) => `/creatives/${encodeURIComponent(id)}`,
  locations: '/locations',
  location: (id: string) => `/locations/${encodeURIComponent(id)}`,
  locationsImport: '/locations/import',
  simulation: '/simulation',
  simulationOf: (id: string) => `/simulation/${encodeURIComponent(id)}`,
  simulationFor: ({ creative, location }: { creative?: string; location?: string }) => {
    const search = new URLSearchParams();
    if (creative) search.set('creative', creative);
    if (location) search.set('location', location);
    return `/simulation?${search.toString()}`;
  },
  heatmap: '/heatmap',
  heatmapNew: '/heatmap/new',
  heatmapResults: (id: string) => `/heatmap/results/${encodeURIComponent(id)}`,
  heatmapCompare: (id: string) => `/heatmap/results/${encodeURIComponent(id)}/compare`,
  heatmapMedia: (mediaId: string) => `/heatmap/${encodeURIComponent(mediaId)}`,
  account: '/account',
  help: '/help',
  helpArticle: (slug: string) => `/help/${encodeURIComponent(slug)}`,
  resetPassword: '/reset-password',
  workspace: '/workspace',
  workspaceActivity: '/workspace/activity',
  invitation: (token: string) => `/invitations/${encodeURIComponent(token)}`,
} as const;

/**
 * Signed-out visitors see the login screen at whatever address they opened
 * (the gate renders it in place of the pages), so after signing in they land
 * on the page they asked for. /reset-password has no page of its own: the
 * gate shows "choose a new password" there (or "send me a link" signed out).
 *
 * Signed in, every page is inside the workspace provider (features/workspaces): the app and the
 * invitation page (`/invitations/:token`, the link of an invitation mail, in the login card).
 * Switching workspace forgets the assistant's conversation, which was about the old library.
 */
export function createAppRoutes(): RouteObject[] {
  return [
    // A share link opens without an account (and the same for a signed-in visitor).
    {
      path: 'shared/:token',
      errorElement: <RouteError />,
      element: (
        <Suspense fallback={<FullScreenSpinner />}>
          <SharedRoute />
        </Suspense>
      ),
    },
    {
      element: <AuthGate />,
      errorElement: <RouteError />,
      children: [
        {
          element: (
            <WorkspaceProvider onSwitch={clearConversation}>
              <Outlet />
            </WorkspaceProvider>
          ),
          children: [
            {
              path: 'invitations/:token',
              element: (
                <Suspense fallback={<FullScreenSpinner />}>
                  <InvitationRoute />
                </Suspense>
              ),
            },
            {
              element: <AppLayout />,
              children: [
                { index: true, element: <Navigate to={paths.creatives} replace /> },
                { path: 'creatives', element: <CreativesRoute /> },
                { path: 'creatives/:id', element: <CreativeDetailRoute /> },
                { path: 'locations', element: <LocationsRoute /> },
                { path: 'locations/new', element: <LocationEditRoute /> },
                { path: 'locations/import', element: <LocationsImportRoute /> },
                { path: 'locations/:id', element: <LocationEditRoute /> },
                { path: 'simulation', element: <SimulationRoute /> },
                { path: 'simulation/:id', element: <SimulationRoute /> },
                { path: 'plans', element: <PlansRoute /> },
                { path: 'plans/new', element: <PlanNewRoute /> },
                { path: 'plans/:id', element: <PlanDetailRoute /> },
                { path: 'heatmap', element: <HeatmapListRoute /> },
                { path: 'heatmap/new', element: <HeatmapNewRoute /> },
                { path: 'heatmap/results/:id', element: <HeatmapResultsRoute /> },
                { path: 'heatmap/results/:id/compare', element: <HeatmapCompareRoute /> },
                { path: 'heatmap/:mediaId', element: <HeatmapMediaRoute /> },
                { path: 'account', element: <AccountRoute /> },
                { path: 'help', element: <HelpRoute /> },
                { path: 'help/:slug', element: <HelpArticleRoute /> },
                { path: 'workspace', element: <WorkspaceRoute /> },
                { path: 'workspace/activity', element: <WorkspaceActivityRoute /> },
                { path: '*', element: <NotFoundRoute /> },
              ],
            },
          ],
        },
      ],
    },
  ];
}

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(createAppRoutes()));
  return <RouterProvider router={router} />;
}

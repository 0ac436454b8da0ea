//! Keeps the simulation caches in step with the live stream (lib/events.ts), as the heatmap
//! feature does for its own:
//!
//! - `ready` / `resync`: events are not replayed, everything under `['simulations']` is
//!   invalidated;
//! - `simulation` queued/rendering/draft: the status is patched in place (detail and lists), no
//!   request;
//! - `simulation` done/failed: a failure is patched at once (with its error), then the detail and
//!   the lists are invalidated, so the output and the download links arrive with the refetch (a
//!   done simulation keeps its previous status until then: never "done" without an image);
//! - `heatmap_item` of an attention analysis (its heatmap id is on a cached simulation):
//!   finished work invalidates that simulation, whose `attention` then carries the shares.
import { type InfiniteData, type QueryClient, useQueryClient } from '@tanstack/react-query';

import type { Page } from '@/lib/api';
import { useLiveConnection, useLiveEventListener, type LiveEvent, type SimulationEvent } from '@/lib/events';

import { simulationKeys, type Simulation } from './simulations';

/** The simulation as the event describes it (done waits for the refetch). */
export function patchSimulation(simulation: Simulation, event: SimulationEvent): Simulation {
  if (simulation.id !== event.simulation_id || event.status === 'done') return simulation;
  if (event.status === 'failed') {
    return { ...simulation, status: 'failed', error: event.error ?? { code: 'internal', message: 'internal' } };
  }
  return simulation.status === event.status ? simulation : { ...simulation, status: event.status, error: null };
}

export function applySimulationEvent(queryClient: QueryClient, event: LiveEvent) {
  if (event.type === 'ready') {
    void queryClient.invalidateQueries({ queryKey: simulationKeys.all });
    return;
  }
  if (event.type === 'heatmap_item') {
    if (event.data.status !== 'done' && event.data.status !== 'failed') return;
    const heatmapId = event.data.heatmap_id;
    for (const [key, simulation] of queryClient.getQueriesData<Simulation>({ queryKey: [...simulationKeys.all, 'detail'] })) {
      if (simulation?.attention?.heatmap_id === heatmapId) void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
    void queryClient.invalidateQueries({ queryKey: simulationKeys.lists });
    return;
  }
  if (event.type !== 'simulation') return;
  const data = event.data;
  const finished = data.status === 'done' || data.status === 'failed';
  const detailKey = simulationKeys.detail(data.simulation_id);
  queryClient.setQueryData<Simulation>(detailKey, (simulation) => (simulation ? patchSimulation(simulation, data) : simulation));
  // An answer in flight may predate the event and would undo the patch.
  if (finished || queryClient.isFetching({ queryKey: detailKey, exact: true }) > 0) {
    void queryClient.invalidateQueries({ queryKey: detailKey, exact: true });
  }
  let listed = false;
  queryClient.setQueriesData<InfiniteData<Page<Simulation>>>({ queryKey: simulationKeys.lists }, (lists) =>
    lists
      ? {
          ...lists,
          pages: lists.pages.map((page) => ({
            ...page,
            items: page.items.map((simulation) => {
              if (simulation.id !== data.simulation_id) return simulation;
              listed = true;
              return patchSimulation(simulation, data);
            }),
          })),
        }
      : lists,
  );
  if (finished || !listed) void queryClient.invalidateQueries({ queryKey: simulationKeys.lists });
}

/** Applies live events to the simulation caches while the page is mounted, and holds the connection. */
export function useSimulationLiveUpdates() {
  const queryClient = useQueryClient();
  useLiveConnection();
  useLiveEventListener((event) => applySimulationEvent(queryClient, event));
}

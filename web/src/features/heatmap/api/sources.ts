//! The images a heatmap can be made from: the user's creatives, the photos
//! of their locations and their finished renders (docs/architecture/api.md,
//! simulations.md). Read here with the fields the
//! picker needs rather than through the creatives and locations features
//! (features do not import each other). The keys sit under those features'
//! prefixes (`['creatives' | 'locations' | 'simulations', 'picker']`), so their
//! mutations, which invalidate their whole prefix, refresh the picker too.
import { infiniteQueryOptions } from '@tanstack/react-query';

import { answer, api, type Page, type Schemas } from '@/lib/api';

// What the lists (`GET /creatives`, `/locations`, `/simulations`) say of each item.
export type CreativeSource = Pick<Schemas['Paged_Creative']['items'][number], 'id' | 'name' | 'media'>;
export type LocationSource = Pick<Schemas['Paged_Location']['items'][number], 'id' | 'name' | 'photo'>;
export type SimulationSource = Pick<Schemas['Paged_Simulation']['items'][number], 'id' | 'name' | 'output'>;

/** One image the picker offers. */
export type PickerImage = { media: Schemas['Media']; name: string };

const PAGE_SIZE = 60;

export const sourceKeys = {
  creatives: ['creatives', 'picker'] as const,
  locations: ['locations', 'picker'] as const,
  simulations: ['simulations', 'picker'] as const,
};

export function creativeSourcesQueryOptions() {
  return infiniteQueryOptions({
    queryKey: sourceKeys.creatives,
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/creatives', { params: { query: { limit: PAGE_SIZE, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function locationSourcesQueryOptions() {
  return infiniteQueryOptions({
    queryKey: sourceKeys.locations,
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/locations', { params: { query: { limit: PAGE_SIZE, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function simulationSourcesQueryOptions() {
  return infiniteQueryOptions({
    queryKey: sourceKeys.simulations,
    initialPageParam: null as string | null,
    queryFn: ({ signal, pageParam }) =>
      answer(api.GET('/simulations', { params: { query: { limit: PAGE_SIZE, cursor: pageParam ?? undefined } }, signal })),
    getNextPageParam: (last) => last.next_cursor,
  });
}

export function creativeImages(pages: Array<Page<CreativeSource>>): PickerImage[] {
  return pages.flatMap((page) => page.items.map((creative) => ({ media: creative.media, name: creative.name })));
}

/** Locations without a photo have nothing to analyse and are left out. */
export function locationImages(pages: Array<Page<LocationSource>>): PickerImage[] {
  return pages.flatMap((page) =>
    page.items.flatMap((location) => (location.photo ? [{ media: location.photo, name: location.name }] : [])),
  );
}

/** Simulations not rendered yet (draft, queued, failed first time) have no image and are left out. */
export function renderImages(pages: Array<Page<SimulationSource>>): PickerImage[] {
  return pages.flatMap((page) =>
    page.items.flatMap((simulation) => (simulation.output ? [{ media: simulation.output, name: simulation.name }] : [])),
  );
}

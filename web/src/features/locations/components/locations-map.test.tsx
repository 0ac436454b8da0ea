//! The map hands Leaflet a location's name as text: Leaflet sets a string tooltip as HTML, and a
//! location named `<style>#root{filter:invert(1)}</style>` restyled every member's page.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';

import { mockApi } from '@/testing/api-mock';

import { LocationsMap } from './locations-map';

const NAMES = ['<style>#root{filter:invert(1)}</style>', '<img src=x onerror=alert(1)>'];
const ATTRIBUTION = '<img src=x onerror=alert(2)> © <b>Tiles</b> & co';

function renderMap() {
  mockApi(({ method, path }) => {
    if (method !== 'GET') return undefined;
    if (path === '/map') return { body: { tiles_url: '/tiles/{z}/{x}/{y}.png', attribution: ATTRIBUTION, max_zoom: 19 } };
    if (path === '/locations/positions') {
      const items = NAMES.map((name, i) => ({ id: `l${i}`, name, city: null, format: 'other', audience: null, latitude: 48.6 + i, longitude: 2.4 }));
      return { body: { items, truncated: false } };
    }
    return undefined;
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter>
        <LocationsMap filters={{ q: '', format: '', city: '', audience: '', sort: 'name' }} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe('locations map', () => {
  it('shows a location name made of markup as text in its tooltip, never as elements', async () => {
    const { container } = renderMap();
    const markers = await screen.findAllByTestId('map-marker');
    expect(markers).toHaveLength(NAMES.length);
    const pane = container.querySelector('.leaflet-tooltip-pane');
    expect(pane).not.toBeNull();
    for (const [i, name] of NAMES.entries()) {
      // Leaflet opens a marker's tooltip when the pointer comes over it.
      fireEvent.mouseOver(markers[i]);
      const tooltip = pane!.querySelector('.leaflet-tooltip');
      expect(tooltip).not.toBeNull();
      expect(tooltip!.textContent).toBe(`${name} · Autre (dimensions libres)`);
      expect(tooltip!.querySelector('style, img, b')).toBeNull();
      fireEvent.mouseOut(markers[i]);
    }
    // Nowhere in the map did the names become elements.
    expect(container.querySelector('style, img:not(.leaflet-tile)')).toBeNull();
  });

  it('shows the configured attribution as text', async () => {
    const { container } = renderMap();
    await screen.findAllByTestId('map-marker');
    const attribution = container.querySelector('.leaflet-control-attribution');
    expect(attribution).not.toBeNull();
    expect(attribution!.textContent).toContain(ATTRIBUTION);
    expect(attribution!.querySelector('img, b')).toBeNull();
  });
});

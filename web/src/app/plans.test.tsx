import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { fakeMedia, mockApi, type ApiCall } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

function location(id: string, name: string, daily: number | null) {
  return {
    id,
    name,
    address: null,
    city: 'Paris',
    postal_code: null,
    country: null,
    latitude: null,
    longitude: null,
    format: 'billboard_4x3',
    panel_width_cm: 400,
    panel_height_cm: 300,
    illumination: 'none',
    orientation_deg: null,
    photo_media_id: `m-${id}`,
    photo: fakeMedia(`m-${id}`),
    panel_quad: [
      { x: 0.2, y: 0.2 },
      { x: 0.8, y: 0.2 },
      { x: 0.8, y: 0.8 },
      { x: 0.2, y: 0.8 },
    ],
    notes: null,
    daily_contacts: daily,
    audience_source: 'Affimétrie 2026',
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
  };
}

const RIVOLI = location('l1', 'Rivoli', 10_000);
const NATION = location('l2', 'Nation', 4_000);
const CREATIVE = { id: 'c1', name: 'Soldes', brand: null, campaign: null, notes: null, media: fakeMedia('m-c1'), created_at: '2026-11-21T00:00:00.000Z', updated_at: '2026-11-21T00:00:00.000Z' };

function site(l: ReturnType<typeof location>, noticed: number | null) {
  return {
    location_id: l.id,
    simulation_id: `s-${l.id}`,
    daily_contacts: l.daily_contacts,
    contacts: (l.daily_contacts ?? 0) * 14,
    noticed,
    time_in_view_s: 3.8,
    legible: true,
    name: l.name,
    address: null,
    city: 'Paris',
    format: 'billboard_4x3',
    status: noticed === null ? 'rendering' : 'done',
    first_second_probability: noticed === null ? null : 0.5,
    render: null,
  };
}

function plan(rendered: boolean) {
  return {
    id: 'p1',
    name: 'Soldes d’hiver',
    creative_id: 'c1',
    start_date: '2027-01-07',
    end_date: '2027-01-20',
    status: rendered ? 'ready' : 'rendering',
    sites: [site(RIVOLI, rendered ? 70_000 : null), site(NATION, rendered ? 28_000 : null)],
    totals: { locations: 2, days: 14, contacts: 196_000, noticed: rendered ? 98_000 : null },
    creative_name: 'Soldes',
    creative: fakeMedia('m-c1'),
    created_at: '2026-11-29T00:00:00.000Z',
    updated_at: '2026-11-29T00:00:00.000Z',
  };
}

const sent: ApiCall[] = [];

beforeEach(() => {
  resetAuthMock(fakeSession());
  sent.length = 0;
  mockApi((call) => {
    sent.push(call);
    const { method, path } = call;
    if (method === 'GET' && path === '/locations') return { body: { items: [RIVOLI, NATION], next_cursor: null } };
    if (method === 'GET' && path === '/map') return { body: { tiles_url: '/tiles/{z}/{x}/{y}.png', attribution: 'Test', max_zoom: 19 } };
    if (method === 'GET' && path === '/locations/positions') {
      const items = [RIVOLI, NATION].map((l, i) => ({ id: l.id, name: l.name, city: 'Paris', format: l.format, audience: 'road', latitude: 48.85 + i / 100, longitude: 2.35 }));
      return { body: { items, truncated: false } };
    }
    if (method === 'GET' && path === '/locations/facets') return { body: { cities: [], formats: [] } };
    if (method === 'GET' && path === '/locations/l1') return { body: RIVOLI };
    if (method === 'GET' && path === '/locations/l2') return { body: NATION };
    if (method === 'GET' && path === '/creatives') return { body: { items: [CREATIVE], next_cursor: null } };
    if (method === 'POST' && path === '/plans') return { status: 201, body: plan(false) };
    if (method === 'GET' && path === '/plans/p1') return { body: plan(false) };
    if (method === 'GET' && path === '/plans') return { body: { items: [plan(true)], next_cursor: null } };
    return undefined;
  });
});

describe('campaign plans', () => {
  it('makes a plan from the locations list’s selection, its contacts moving with the dates', async () => {
    const { user, router } = renderApp('/locations');
    await user.click(await screen.findByRole('checkbox', { name: 'Sélectionner Rivoli' }));
    await user.click(screen.getByRole('checkbox', { name: 'Sélectionner Nation' }));
    await user.click(screen.getByRole('link', { name: 'Créer un plan avec 2 emplacements' }));
    expect(router.state.location.pathname).toBe('/plans/new');
    expect(await screen.findByRole('heading', { level: 1, name: 'Nouveau plan de campagne' })).toBeInTheDocument();
    const chosen = screen.getByTestId('plan-chosen');
    await within(chosen).findByText('Nation');
    expect(within(chosen).getByText('Rivoli')).toBeInTheDocument();

    await user.type(screen.getByLabelText(/Nom du plan/), 'Soldes d’hiver');
    await user.selectOptions(await screen.findByTestId('plan-creative'), 'c1');
    const contacts = () => within(screen.getByTestId('plan-total-contacts')).getByRole('definition').textContent?.replace(/\s/g, '');
    expect(contacts()).toBe('—');
    await user.type(screen.getByLabelText('Premier jour'), '2027-01-07');
    await user.type(screen.getByLabelText('Dernier jour'), '2027-01-07');
    await waitFor(() => expect(contacts()).toBe('14000'));
    await user.clear(screen.getByLabelText('Dernier jour'));
    await user.type(screen.getByLabelText('Dernier jour'), '2027-01-20');
    await waitFor(() => expect(contacts()).toBe('196000'));
    // Removing a site takes its contacts out.
    await user.click(screen.getByRole('button', { name: 'Retirer Nation du plan' }));
    await waitFor(() => expect(contacts()).toBe('140000'));
    await user.click(screen.getByRole('checkbox', { name: /Nation/ }));
    await waitFor(() => expect(contacts()).toBe('196000'));

    await user.click(screen.getByRole('button', { name: 'Créer le plan' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/plans/p1'));
    const post = sent.find((c) => c.method === 'POST' && c.path === '/plans');
    expect(post?.body).toEqual({
      name: 'Soldes d’hiver',
      creative_id: 'c1',
      location_ids: ['l1', 'l2'],
      start_date: '2027-01-07',
      end_date: '2027-01-20',
    });
    // Noticed contacts wait for the renders.
    expect(await screen.findByText('en attente des rendus')).toBeInTheDocument();
    expect(screen.getByTestId('plan-status')).toHaveTextContent('Rendus en cours');
    expect(screen.getAllByTestId('plan-site')).toHaveLength(2);
  });

  it('chooses every location the map shows for a plan, and rings their markers', async () => {
    const { user, router } = renderApp('/locations?view=map');
    await waitFor(() => expect(screen.getAllByTestId('map-marker')).toHaveLength(2));
    expect(screen.queryByTestId('location-selection')).not.toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Choisir pour un plan les 2 emplacements de la carte' }));
    await waitFor(() => expect(screen.getAllByTestId('map-marker').filter((m) => m.getAttribute('data-selected') === 'true')).toHaveLength(2));
    await user.click(screen.getByRole('link', { name: 'Créer un plan avec 2 emplacements' }));
    expect(router.state.location.pathname).toBe('/plans/new');
    expect(router.state.location.search).toBe('?locations=l1,l2');
  });

  it('lists the plans with their period and totals', async () => {
    renderApp('/plans');
    const card = await screen.findByTestId('plan-card');
    expect(card).toHaveTextContent('Soldes d’hiver');
    expect(card).toHaveTextContent('Du 07/01/2027 au 20/01/2027 (14 jours)');
    expect(card.textContent?.replace(/\s/g, '')).toContain('196000contacts');
    expect(card.textContent?.replace(/\s/g, '')).toContain('98000remarqués');
    expect(card).toHaveTextContent('Prêt');
  });
});

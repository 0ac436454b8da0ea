import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type { PreviewParams } from '@/features/simulation/lib/preview';
import type * as api from '@/lib/api';
import { fakeMedia, mockApi, type ApiCall } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { withEventStream } from '@/testing/event-stream';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
vi.mock('@/lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof api>()),
  uploadMedia: vi.fn(),
}));

// jsdom has no WebGL and no canvas: the preview module is replaced by a renderer that records.
const renderer = vi.hoisted(() => ({
  kind: 'webgl2' as const,
  lastFrameMs: 0,
  setSources: vi.fn(),
  setMask: vi.fn(),
  render: vi.fn<(params: PreviewParams) => void>(),
  readPixels: vi.fn(),
  dispose: vi.fn(),
}));
vi.mock('@/features/simulation/lib/preview', () => ({
  createPreviewRenderer: vi.fn(() => renderer),
}));

// ---------- Fixtures (docs/architecture/simulations.md) ----------

const QUAD = [
  { x: 0.1, y: 0.2 },
  { x: 0.6, y: 0.22 },
  { x: 0.61, y: 0.5 },
  { x: 0.1, y: 0.52 },
];

const creative = { id: 'c1', name: 'Affiche été', media: fakeMedia('mc1', { width: 1200, height: 900 }) };

function location(extra: Record<string, unknown> = {}) {
  return {
    id: 'l1',
    name: 'Gare de Lyon',
    address: null,
    city: 'Paris',
    postal_code: '75012',
    country: 'FR',
    latitude: null,
    longitude: null,
    format: 'billboard_4x3',
    panel_width_cm: 400,
    panel_height_cm: 300,
    illumination: 'back',
    orientation_deg: null,
    photo_media_id: 'ml1',
    photo: fakeMedia('ml1'),
    panel_quad: QUAD,
    notes: null,
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    simulation_count: 0,
    ...extra,
  };
}

const ADJUSTMENTS = {
  brightness: 0,
  contrast: 0,
  saturation: 0,
  warmth: 0,
  sharpness: 0,
  grain: 0,
  glare: 0,
  auto_match: true,
  night: null,
  view: null,
};

function simulation(extra: Record<string, unknown> = {}) {
  const done = extra.status === 'done';
  return {
    id: 's1',
    name: 'Affiche été — Gare de Lyon',
    creative_id: 'c1',
    location_id: 'l1',
    creative,
    location: location(),
    quad: QUAD,
    quad_override: false,
    fit: 'cover',
    background: '#ffffff',
    adjustments: ADJUSTMENTS,
    mask: null,
    status: 'queued',
    error: null,
    output: done ? fakeMedia('out1', { kind: 'render', mime: 'image/jpeg' }) : null,
    downloads: done
      ? { jpeg: '/api/v1/files/out1/original?exp=1&sig=a&download=1', png: '/api/v1/files/out2/original?exp=1&sig=a&download=1' }
      : null,
    attention: null,
    rendered_at: null,
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T10:00:00.000Z',
    ...extra,
  };
}

const page = (items: unknown[]) => ({ body: { items, next_cursor: null } });

/** The API of a user with one creative and one location, and `sims` saved. */
function server(sims: () => unknown[], extra?: (call: ApiCall) => { status?: number; body?: unknown } | undefined) {
  return (call: ApiCall) => {
    const answer = extra?.(call);
    if (answer) return answer;
    const { method, path } = call;
    if (method !== 'GET') return undefined;
    if (path === '/creatives') return page([creative]);
    if (path === '/locations') return page([location(), location({ id: 'l2', name: 'Sans photo', photo: null, photo_media_id: null, panel_quad: null })]);
    if (path === '/creatives/c1') return { body: { ...creative, simulation_count: 0 } };
    if (path === '/locations/l1') return { body: location() };
    if (path === '/simulations') return page(sims());
    const match = /^\/simulations\/(\w+)$/.exec(path);
    if (match) {
      const found = sims().find((s) => (s as { id: string }).id === match[1]);
      return found ? { body: found } : undefined;
    }
    return undefined;
  };
}

beforeEach(() => {
  resetAuthMock(fakeSession());
  Object.values(renderer).forEach((value) => typeof value === 'function' && (value as ReturnType<typeof vi.fn>).mockClear());
});

describe('/simulation', () => {
  it('shows the three sections and pre-selects the creative and the location of a deep link', async () => {
    mockApi(server(() => []));
    renderApp('/simulation?creative=c1&location=l1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes simulations' })).toBeInTheDocument();
    for (const name of ['Configuration', 'Ajustements', 'Aperçu']) {
      expect(screen.getByRole('heading', { level: 2, name })).toBeInTheDocument();
    }
    await waitFor(() => expect(screen.getByTestId('creative-picker')).toHaveAttribute('data-selected', 'c1'));
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    expect(within(screen.getByTestId('creative-picker')).getByText('Affiche été')).toBeInTheDocument();
    expect(within(screen.getByTestId('location-picker')).getByText('Gare de Lyon')).toBeInTheDocument();
    // The preview is on, with the location's corners as handles.
    expect(await screen.findByTestId('preview-canvas')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Coin haut gauche' })).toHaveAttribute('data-x', '0.1000');
    expect(screen.getByTestId('quad-source')).toHaveTextContent("Coins de l'emplacement.");
  });

  it('pre-selects the location alone, and picks a creative in the searchable picker', async () => {
    mockApi(server(() => []));
    const { user } = renderApp('/simulation?location=l1');
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    expect(screen.getByTestId('creative-picker')).toHaveAttribute('data-selected', '');
    await user.click(screen.getByRole('button', { name: 'Choisir une création' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choisir une création' });
    await user.click(await within(dialog).findByRole('button', { name: /Affiche été/ }));
    await waitFor(() => expect(screen.getByTestId('creative-picker')).toHaveAttribute('data-selected', 'c1'));
  });

  it('shows a location without a photo disabled, with the reason', async () => {
    mockApi(server(() => []));
    const { user } = renderApp('/simulation');
    await user.click(await screen.findByRole('button', { name: 'Choisir un emplacement' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choisir un emplacement' });
    const option = await within(dialog).findByRole('button', { name: /Sans photo/ });
    expect(option).toBeDisabled();
    expect(option).toHaveTextContent("Cet emplacement n'a pas de photo");
  });

  it('saves with the right body: corners moved, fit, adjustments with auto match on by default', async () => {
    const posted: unknown[] = [];
    const sims: unknown[] = [];
    mockApi(
      server(
        () => sims,
        ({ method, path, body }) => {
          if (method === 'POST' && path === '/simulations') {
            posted.push(body);
            sims.push(simulation());
            return { status: 201, body: simulation() };
          }
          return undefined;
        },
      ),
    );
    // Images "load" at once, so the preview gets its sources and renders.
    vi.stubGlobal(
      'Image',
      class {
        naturalWidth = 1920;
        naturalHeight = 1080;
        decoding = 'auto';
        onload: (() => void) | null = null;
        onerror: (() => void) | null = null;
        set src(_value: string) {
          setTimeout(() => this.onload?.(), 0);
        }
      },
    );
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const { user, router } = renderApp('/simulation?creative=c1&location=l1');
    const corner = await screen.findByRole('button', { name: 'Coin haut gauche' });
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    // Two steps right with the keyboard (0.2 % of the photo each).
    fireEvent.keyDown(corner, { key: 'ArrowRight' });
    fireEvent.keyDown(corner, { key: 'ArrowRight' });
    expect(screen.getByTestId('quad-source')).toHaveTextContent('Coins ajustés pour cette simulation.');
    fireEvent.change(screen.getByRole('slider', { name: 'Luminosité' }), { target: { value: '0.25' } });
    await user.click(screen.getByTestId('fit-contain'));
    await user.click(screen.getByTestId('save-simulation'));

    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual({
      creative_id: 'c1',
      location_id: 'l1',
      fit: 'contain',
      background: '#ffffff',
      adjustments: { ...ADJUSTMENTS, brightness: 0.25 },
      quad: [{ x: 0.104, y: 0.2 }, ...QUAD.slice(1)],
    });
    // The page moves to the saved simulation, whose status shows.
    await waitFor(() => expect(router.state.location.pathname).toBe('/simulation/s1'));
    expect(await screen.findByTestId('sim-status')).toHaveTextContent('En attente de rendu…');
    // The preview got its sources once and was rendered with the parameters (coalesced per frame).
    expect(renderer.setSources).toHaveBeenCalledTimes(1);
    await waitFor(() =>
      expect(renderer.render).toHaveBeenLastCalledWith(
        expect.objectContaining({ fit: 'contain', panelAspect: 4 / 3, view: 'after', adjustments: expect.objectContaining({ brightness: 0.25 }) as unknown }),
      ),
    );
    expect(renderer.render.mock.lastCall?.[0].quad[0].x).toBeCloseTo(0.104, 9);
  });

  it('replaces the draft with the saved simulation in the history: Back returns to the page before', async () => {
    const sims: unknown[] = [];
    mockApi(
      server(
        () => sims,
        ({ method, path }) => {
          if (method === 'POST' && path === '/simulations') {
            sims.push(simulation());
            return { status: 201, body: simulation() };
          }
          return undefined;
        },
      ),
    );
    const { user, router } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    await act(() => router.navigate('/simulation?creative=c1&location=l1'));
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    const scrollTo = vi.spyOn(window, 'scrollTo');
    await user.click(screen.getByTestId('save-simulation'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/simulation/s1'));
    expect(router.state.historyAction).toBe('REPLACE');
    // The editor stays where it was on the page.
    expect(scrollTo).not.toHaveBeenCalled();

    await act(() => router.navigate(-1));
    expect(router.state.location.pathname).toBe('/creatives');
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes créations' })).toBeInTheDocument();
  });

  it('shows the panel from a distance: the view from there, its distance and speed, in the preview and the saved body', async () => {
    const posted: unknown[] = [];
    const sims: unknown[] = [];
    mockApi(
      server(
        () => sims,
        ({ method, path, body }) => {
          if (method === 'POST' && path === '/simulations') {
            posted.push(body);
            sims.push(simulation());
            return { status: 201, body: simulation() };
          }
          return undefined;
        },
      ),
    );
    vi.stubGlobal(
      'Image',
      class {
        naturalWidth = 1920;
        naturalHeight = 1080;
        decoding = 'auto';
        onload: (() => void) | null = null;
        onerror: (() => void) | null = null;
        set src(_value: string) {
          setTimeout(() => this.onload?.(), 0);
        }
      },
    );
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(null);
    const { user } = renderApp('/simulation?creative=c1&location=l1');
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    const toggle = await screen.findByRole('switch', { name: /Voir depuis l'emplacement/ });
    expect(toggle).not.toBeChecked();
    expect(screen.queryByTestId('view-distance')).not.toBeInTheDocument();
    await user.click(toggle);
    // No viewing conditions on the location: 30 m, on foot (5 km/h).
    expect(toggle).toBeChecked();
    expect(screen.getByTestId('view-distance')).toHaveValue(30);
    expect(screen.getByTestId('view-speed')).toHaveValue(5);
    expect(screen.getByTestId('view-from-help')).toHaveTextContent("Le panneau tel qu'un œil normal le voit à 30 m, en passant à 5 km/h.");
    fireEvent.change(screen.getByRole('slider', { name: 'Distance' }), { target: { value: '120' } });
    expect(screen.getByTestId('view-distance')).toHaveValue(120);
    // A value out of range is not taken while typed.
    fireEvent.change(screen.getByTestId('view-speed'), { target: { value: '500' } });
    expect(screen.getByTestId('view-from-help')).toHaveTextContent('à 120 m, en passant à 5 km/h.');
    fireEvent.change(screen.getByTestId('view-speed'), { target: { value: '0' } });
    expect(screen.getByTestId('view-from-help')).toHaveTextContent("Le panneau tel qu'un œil normal le voit à 120 m, sans bouger.");
    await waitFor(() =>
      expect(renderer.render).toHaveBeenLastCalledWith(
        expect.objectContaining({
          site: { width_m: 4, height_m: 3, passing_m: 5 },
          adjustments: expect.objectContaining({ view: { distance_m: 120, speed_kmh: 0 } }) as unknown,
        }),
      ),
    );
    await user.click(screen.getByTestId('save-simulation'));
    await waitFor(() => expect(posted).toHaveLength(1));
    expect(posted[0]).toEqual(expect.objectContaining({ adjustments: { ...ADJUSTMENTS, view: { distance_m: 120, speed_kmh: 0 } } }));
  });

  it('cannot show the view from there without the panel’s size', async () => {
    const unsized = location({ panel_width_cm: null, panel_height_cm: null });
    mockApi(server(() => [], ({ method, path }) => (method === 'GET' && path === '/locations/l1' ? { body: unsized } : undefined)));
    renderApp('/simulation?creative=c1&location=l1');
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    const toggle = await screen.findByRole('switch', { name: /Voir depuis l'emplacement/ });
    await waitFor(() => expect(toggle).toBeDisabled());
    expect(screen.getByTestId('view-from-help')).toHaveTextContent("Indiquez les dimensions du panneau de l'emplacement");
  });

  it('asks before leaving an edited simulation, and not when nothing changed', async () => {
    mockApi(server(() => [simulation({ status: 'done' })]));
    const { user, router } = renderApp('/simulation/s1');
    await screen.findByLabelText('Nom', { exact: true });
    await waitFor(() => expect(screen.getByTestId('location-picker')).toHaveAttribute('data-selected', 'l1'));
    await user.click(screen.getByRole('link', { name: 'Créations' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();

    await act(() => router.navigate('/simulation/s1'));
    await user.type(await screen.findByLabelText('Nom', { exact: true }), ' bis');
    await user.click(screen.getByRole('link', { name: 'Emplacements' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Quitter sans enregistrer ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Quitter sans enregistrer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
  });

  it('asks for a creative and a location, and shows the server field errors', async () => {
    mockApi(
      server(
        () => [],
        ({ method, path }) =>
          method === 'POST' && path === '/simulations'
            ? {
                status: 422,
                body: {
                  code: 'validation_failed',
                  message: 'invalid',
                  details: { fields: { quad: 'too_small', 'adjustments.brightness': 'out_of_range', name: 'too_long' } },
                },
              }
            : undefined,
      ),
    );
    const { user } = renderApp('/simulation');
    await user.click(await screen.findByTestId('save-simulation'));
    expect(within(screen.getByTestId('creative-picker')).getByRole('alert')).toHaveTextContent('Ce champ est obligatoire.');
    expect(within(screen.getByTestId('location-picker')).getByRole('alert')).toHaveTextContent('Ce champ est obligatoire.');

    await user.click(screen.getByRole('button', { name: 'Choisir une création' }));
    await user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: /Affiche été/ }));
    await user.click(screen.getByRole('button', { name: 'Choisir un emplacement' }));
    await user.click(await within(await screen.findByRole('dialog')).findByRole('button', { name: /Gare de Lyon/ }));
    await user.click(screen.getByTestId('save-simulation'));
    expect(await screen.findByTestId('quad-error')).toHaveTextContent('Le cadre du panneau est trop petit.');
    expect(within(screen.getByTestId('slider-brightness')).getByText('Cette valeur est en dehors des limites autorisées.')).toBeInTheDocument();
    expect(screen.getByText('Ce texte est trop long.')).toBeInTheDocument();
    expect(screen.getByText("Certains champs sont à corriger avant d'enregistrer.")).toBeInTheDocument();
  });

  it('resets one slider and all of them', async () => {
    mockApi(server(() => []));
    const { user } = renderApp('/simulation?creative=c1&location=l1');
    const brightness = await screen.findByRole('slider', { name: 'Luminosité' });
    const glare = screen.getByRole('slider', { name: 'Reflet' });
    fireEvent.change(brightness, { target: { value: '-0.5' } });
    fireEvent.change(glare, { target: { value: '0.3' } });
    expect(within(screen.getByTestId('slider-brightness')).getByText('−50')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: /Ajustement automatique/ })).toBeChecked();

    await user.click(screen.getByRole('button', { name: 'Réinitialiser : Luminosité' }));
    expect(brightness).toHaveValue('0');
    expect(glare).toHaveValue('0.3');
    await user.click(screen.getByRole('button', { name: 'Tout réinitialiser' }));
    expect(glare).toHaveValue('0');
  });

  it('follows the render live: rendering, then the image with its downloads, then the attention analysis', async () => {
    let current = simulation({ status: 'queued' });
    const attentionCalls: string[] = [];
    const live = withEventStream(
      server(
        () => [current],
        ({ method, path }) => {
          if (method === 'POST' && path === '/simulations/s1/attention') {
            attentionCalls.push(path);
            current = simulation({
              status: 'done',
              attention: { heatmap_id: 'h1', item_id: 'i1', status: 'processing', score: null, panel_share: null, area_share: null, visibility: null },
            });
            return { status: 202, body: { heatmap_id: 'h1' } };
          }
          return undefined;
        },
      ),
    );
    const { user } = renderApp('/simulation/s1');
    const result = await screen.findByTestId('sim-result');
    expect(within(result).getByTestId('sim-status')).toHaveTextContent('En attente de rendu…');
    await waitFor(() => expect(live.connected()).toBe(true));

    act(() => live.send('simulation', { simulation_id: 's1', status: 'rendering', error: null }));
    expect(await within(result).findByText('Rendu en cours à pleine résolution…')).toBeInTheDocument();

    current = simulation({ status: 'done' });
    act(() => live.send('simulation', { simulation_id: 's1', status: 'done', error: null }));
    expect(await within(result).findByTestId('render-image')).toHaveAttribute('src', '/api/v1/files/out1/preview?exp=1&sig=a');
    expect(within(result).getByRole('link', { name: 'Télécharger PNG' })).toHaveAttribute('href', '/api/v1/files/out2/original?exp=1&sig=a&download=1');
    expect(within(result).getByRole('link', { name: 'Télécharger JPEG' })).toHaveAttribute('href', '/api/v1/files/out1/original?exp=1&sig=a&download=1');

    await user.click(within(result).getByRole('button', { name: "Analyser l'attention" }));
    expect(await within(result).findByText("Analyse de l'attention en cours…")).toBeInTheDocument();
    expect(attentionCalls).toEqual(['/simulations/s1/attention']);
    current = simulation({
      status: 'done',
      attention: { heatmap_id: 'h1', item_id: 'i1', status: 'done', score: 61.2, panel_share: 0.23, area_share: 0.11, visibility: 2.09, first_second_probability: 0.47, glance_share: 0.17 },
      audience: { daily_contacts: 10_000, noticed_per_day: 4_700 },
    });
    act(() => live.send('heatmap_item', { heatmap_id: 'h1', item_id: 'i1', status: 'done', score: 61.2, error: null }));
    expect(await within(result).findByTestId('attention-share')).toHaveTextContent(/23\s%/);
    expect(within(result).getByTestId('attention-visibility')).toHaveTextContent('2,1×');
    // The probability of a look within the first second leads.
    expect(within(result).getByTestId('attention-first-second')).toHaveTextContent(/47\s%/);
    expect(within(result).getByText('Vu dans la 1re seconde')).toBeInTheDocument();
    // With the location's contacts: how many of them notice the panel, and how reliable that is.
    expect(within(result).getByTestId('sim-audience').textContent?.replace(/\s/g, ' ')).toContain(
      '4 700 passants par jour sur 10 000 contacts remarquent le panneau dans la première seconde.',
    );
    expect(within(result).getByTestId('sim-audience')).toHaveTextContent(/Fiabilité/);
    expect(within(result).getByRole('link', { name: 'Voir la heatmap' })).toHaveAttribute('href', '/heatmap/results/h1');
  });

  it('shows a failed render with its reason and retries it', async () => {
    let current = simulation({ status: 'failed', error: { code: 'source_missing', message: 'gone' } });
    const retried: string[] = [];
    mockApi(
      server(
        () => [current],
        ({ method, path }) => {
          if (method === 'POST' && path === '/simulations/s1/render') {
            retried.push(path);
            current = simulation({ status: 'queued' });
            return { status: 202, body: current };
          }
          return undefined;
        },
      ),
    );
    const { user } = renderApp('/simulation/s1');
    expect(await screen.findByTestId('sim-error')).toHaveTextContent("La création ou la photo de l'emplacement a été supprimée.");
    await user.click(screen.getByRole('button', { name: 'Réessayer' }));
    expect(await screen.findByText('En attente de rendu…')).toBeInTheDocument();
    expect(retried).toHaveLength(1);
  });

  it('says which texts can be read from where the panel is seen, and for how long', async () => {
    const text = (y: number, letter: number, legible: number, shown: number, reading: string | null, needed: number | null) => ({
      x: 0.1,
      y,
      width: 0.8,
      height: 0.05,
      letter_height_mm: letter,
      legible_distance_m: legible,
      comfortable_distance_m: Math.round(legible * 5) / 10,
      shown,
      reading,
      needed_mm: needed,
    });
    const conditions = { audience: 'road', viewing_distance_min_m: 10, viewing_distance_max_m: 120, speed_kmh: null };
    const current = simulation({
      status: 'done',
      location: location(conditions),
      legibility: {
        texts: [
          text(0.02, 900, 309.4, 0, 'whole', 349.1),
          text(0.1, 400, 137.5, 1, 'whole', 349.1),
          text(0.5, 120, 41.3, 1, 'part', 349.1),
          text(0.95, 12, 4.1, 1, 'never', 349.1),
        ],
        viewing: { speed_kmh: 50, letter_height_mm: 400, legible_distance_m: 137.5, comfortable_distance_m: 68.8, time_in_view_s: 7.9 },
      },
    });
    mockApi(server(() => [current]));
    renderApp('/simulation/s1');
    const panel = await screen.findByTestId('legibility');
    expect(within(panel).getByTestId('legibility-time')).toHaveTextContent('Temps de lecture du texte principal : 7,9 s');
    expect(within(panel).getByTestId('legibility-time')).toHaveTextContent('lisibles confortablement jusqu’à 69 m, au mieux jusqu’à 138 m ; vu de 120 m, en passant à 10 m, à 50 km/h'.replaceAll('’', "'"));
    const rows = within(panel).getAllByRole('listitem');
    expect(rows.map((row) => row.getAttribute('data-reading'))).toEqual(['cropped', 'whole', 'part', 'never']);
    expect(rows[0]).toHaveTextContent('Coupé par le cadrage');
    expect(rows[1]).toHaveTextContent('Texte 2 · lettres de 400 mm');
    expect(rows[1]).toHaveTextContent("Lisible sur toute l'approche : confortablement jusqu'à 69 m, au mieux jusqu'à 138 m.");
    expect(rows[2]).toHaveTextContent("Lisible confortablement jusqu'à 21 m, au mieux jusqu'à 41 m : il faudrait 349 mm pour se lire de 120 m.");
    expect(rows[3]).toHaveTextContent("Illisible d'où l'on passe : il faut 349 mm depuis 120 m, il fait 12 mm.");

    // "See from 120 m" turns the editor's view from there on at the farthest distance, by road.
    const toggle = screen.getByRole('switch', { name: /Voir depuis l'emplacement/ });
    expect(toggle).not.toBeChecked();
    fireEvent.click(within(panel).getByRole('button', { name: 'Voir depuis 120 m' }));
    expect(toggle).toBeChecked();
    expect(screen.getByTestId('view-distance')).toHaveValue(120);
    expect(screen.getByTestId('view-speed')).toHaveValue(50);
    expect(screen.getByTestId('view-from-help')).toHaveTextContent("Le panneau tel qu'un œil normal le voit à 120 m, en passant à 50 km/h.");
  });

  it('asks for the location’s size when the texts cannot be measured', async () => {
    mockApi(server(() => [simulation({ status: 'done', legibility: null })]));
    renderApp('/simulation/s1');
    const missing = await screen.findByTestId('legibility-missing');
    expect(within(missing).getByRole('link', { name: "Modifier l'emplacement" })).toHaveAttribute('href', '/locations/l1');
  });

  it('lists saved simulations, sorts by visibility when filtered by creative, and deletes after confirmation', async () => {
    const analysed = (id: string, name: string, visibility: number) =>
      simulation({
        id,
        name,
        status: 'done',
        attention: { heatmap_id: 'h', item_id: 'i', status: 'done', score: 50, panel_share: 0.2, area_share: 0.1, visibility },
      });
    let sims = [analysed('s1', 'Faible', 0.8), analysed('s2', 'Forte', 2.4)];
    const queries: string[] = [];
    const deleted: string[] = [];
    mockApi(
      server(
        () => sims,
        ({ method, path, query }) => {
          if (method === 'GET' && path === '/simulations') queries.push(query.toString());
          if (method === 'DELETE' && path.startsWith('/simulations/')) {
            deleted.push(path);
            sims = sims.filter((s) => `/simulations/${s.id}` !== path);
            return { status: 204 };
          }
          return undefined;
        },
      ),
    );
    const { user } = renderApp('/simulation');
    const list = await screen.findByTestId('simulation-list');
    let cards = await within(list).findAllByTestId('simulation-card');
    expect(cards.map((c) => c.getAttribute('data-id'))).toEqual(['s1', 's2']);
    expect(within(cards[0]).getByRole('link', { name: 'Faible' })).toHaveAttribute('href', '/simulation/s1');
    expect(cards[0]).toHaveTextContent('Terminé');
    expect(cards[1].querySelector('[data-testid="card-attention"]')).toHaveTextContent('visibilité 2,4×');

    await user.selectOptions(await within(list).findByLabelText('Filtrer par création'), 'c1');
    await waitFor(() => expect(queries).toContain('limit=60&creative_id=c1'));
    await waitFor(() => expect(within(list).getAllByTestId('simulation-card').map((c) => c.getAttribute('data-id'))).toEqual(['s2', 's1']));

    cards = within(list).getAllByTestId('simulation-card');
    await user.click(within(cards[1]).getByRole('button', { name: 'Supprimer Faible' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Supprimer la simulation ?' });
    expect(dialog).toHaveTextContent('« Faible » et son rendu seront supprimés définitivement.');
    await user.click(within(dialog).getByTestId('confirm-delete'));
    await waitFor(() => expect(within(list).getAllByTestId('simulation-card')).toHaveLength(1));
    expect(deleted).toEqual(['/simulations/s1']);
  });

  it('simulates one creative on several locations (batch), contained by default, and says when the renders are done', async () => {
    const batches: unknown[] = [];
    let batched = simulation({ id: 's8', status: 'queued' });
    const live = withEventStream(
      server(
        () => [batched],
        ({ method, path, body }) => {
          if (method === 'POST' && path === '/simulations/batch') {
            batches.push(body);
            return { status: 201, body: { items: [batched] } };
          }
          return undefined;
        },
      ),
    );
    const { user } = renderApp('/simulation');
    await user.click(await screen.findByRole('button', { name: 'Simuler cette création sur plusieurs emplacements' }));
    const dialog = await screen.findByRole('dialog', { name: 'Une création sur plusieurs emplacements' });
    await user.selectOptions(await within(dialog).findByLabelText('Création'), 'c1');
    // Each fit says in one line what it does; contain (nothing cut off) is chosen.
    expect(within(dialog).getByRole('radio', { name: /Contenir.*Montre toute la création/ })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: /Remplir.*les bords qui dépassent sont rognés/ })).not.toBeChecked();
    const gare = await within(dialog).findByRole('checkbox', { name: /Gare de Lyon/ });
    expect(within(dialog).getByRole('checkbox', { name: /Sans photo/ })).toBeDisabled();
    await user.click(gare);
    await user.click(within(dialog).getByRole('button', { name: 'Simuler sur 1 emplacement' }));
    await waitFor(() => expect(batches).toEqual([{ creative_id: 'c1', location_ids: ['l1'], fit: 'contain', background: '#ffffff' }]));
    await waitFor(() => expect(live.connected()).toBe(true));

    // "In progress" until the render is done, as the live events say.
    const notice = await screen.findByTestId('batch-progress');
    expect(notice).toHaveTextContent('1 simulation créée ; rendu en cours…');
    act(() => live.send('simulation', { simulation_id: 's8', status: 'rendering', error: null }));
    expect(notice).toHaveTextContent('rendu en cours');
    batched = simulation({ id: 's8', status: 'done' });
    act(() => live.send('simulation', { simulation_id: 's8', status: 'done', error: null }));
    await waitFor(() => expect(screen.getByTestId('batch-progress')).toHaveTextContent('1 simulation créée et rendue.'));
    expect(screen.getByTestId('batch-progress')).toHaveAttribute('data-running', '0');
  });

  it('starts the batch with the creative being edited and warns where its shape is not the panel\'s', async () => {
    // 0.5 × 1920 = 960 px by 0.3 × 1080 = 324 px: a 2.96:1 panel, estimated from its corners.
    const wide = location({
      id: 'l3',
      name: 'Quai bas',
      panel_width_cm: null,
      panel_height_cm: null,
      panel_quad: [
        { x: 0.25, y: 0.3 },
        { x: 0.75, y: 0.3 },
        { x: 0.75, y: 0.6 },
        { x: 0.25, y: 0.6 },
      ],
    });
    const batches: unknown[] = [];
    let items = [simulation({ id: 's8', location_id: 'l1' }), simulation({ id: 's9', location_id: 'l3' })];
    const live = withEventStream(
      server(
        () => [simulation({ status: 'done' }), ...items],
        ({ method, path, body }) => {
          if (method === 'GET' && path === '/locations') return page([location(), wide]);
          if (method === 'POST' && path === '/simulations/batch') {
            batches.push(body);
            return { status: 201, body: { items } };
          }
          return undefined;
        },
      ),
    );
    const { user } = renderApp('/simulation/s1');
    await screen.findByTestId('sim-result');
    await user.click(await screen.findByRole('button', { name: 'Simuler cette création sur plusieurs emplacements' }));
    const dialog = await screen.findByRole('dialog', { name: 'Une création sur plusieurs emplacements' });
    // The simulation's creative (1200 × 900, 1.33:1) is already chosen.
    expect(within(dialog).getByLabelText('Création')).toHaveValue('c1');

    const rows = await within(dialog).findAllByTestId('batch-location');
    expect(rows).toHaveLength(2);
    // A 4:3 panel (400 × 300 cm) like the creative: nothing to say.
    expect(within(rows[0]).queryByTestId('aspect-warning')).toBeNull();
    const warning = within(rows[1]).getByTestId('aspect-warning');
    expect(warning).toHaveTextContent(/^Création 1,33:1, panneau 2,96:1 : « Contenir » laissera des bandes de fond à gauche et à droite \(55\s%\sdu panneau\)\.$/);
    await user.click(within(dialog).getByRole('radio', { name: /Remplir/ }));
    expect(warning).toHaveTextContent(/« Remplir » coupera 55\s% de la hauteur de la création\./);
    await user.click(within(dialog).getByRole('radio', { name: /Étirer/ }));
    expect(warning).toHaveTextContent(/« Étirer » déformera la création de 122\s%\./);

    await user.click(within(dialog).getByRole('checkbox', { name: /Gare de Lyon/ }));
    expect(within(dialog).queryByTestId('batch-mismatch')).toBeNull();
    await user.click(within(dialog).getByRole('checkbox', { name: /Quai bas/ }));
    expect(within(dialog).getByTestId('batch-mismatch')).toHaveTextContent("1 emplacement choisi n'a pas le format de la création : vérifiez le cadrage.");
    await user.click(within(dialog).getByRole('radio', { name: /Remplir/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Simuler sur 2 emplacements' }));
    // Cover chosen: no background colour is sent.
    await waitFor(() => expect(batches).toEqual([{ creative_id: 'c1', location_ids: ['l1', 'l3'], fit: 'cover' }]));
    await waitFor(() => expect(live.connected()).toBe(true));

    const notice = await screen.findByTestId('batch-progress');
    expect(notice).toHaveTextContent('2 simulations créées ; rendus terminés : 0 sur 2…');
    items = [simulation({ id: 's8', location_id: 'l1', status: 'done' }), items[1]];
    act(() => live.send('simulation', { simulation_id: 's8', status: 'done', error: null }));
    await waitFor(() => expect(screen.getByTestId('batch-progress')).toHaveTextContent('rendus terminés : 1 sur 2…'));
    items = [items[0], simulation({ id: 's9', location_id: 'l3', status: 'failed', error: { code: 'internal', message: 'x' } })];
    act(() => live.send('simulation', { simulation_id: 's9', status: 'failed', error: { code: 'internal', message: 'x' } }));
    await waitFor(() =>
      expect(screen.getByTestId('batch-progress')).toHaveTextContent('Rendus terminés : 1 en échec sur 2 ; ouvrez-le dans la liste pour réessayer.'),
    );
  });
});

describe('links to /simulation', () => {
  it('offers "Simulate" on a creative and on a location', async () => {
    mockApi(server(() => []));
    renderApp('/creatives/c1');
    expect(await screen.findByTestId('simulate-creative')).toHaveAttribute('href', '/simulation?creative=c1');
    // And its heatmap, on the media page (the latest result, or the button that makes one).
    expect(screen.getByRole('link', { name: "Heatmap d'attention" })).toHaveAttribute('href', expect.stringMatching(/^\/heatmap\/[^/]+$/));
  });

  it('states on the location delete confirmation how many simulations go with it', async () => {
    mockApi(({ method, path }) => (method === 'GET' && path === '/locations/l1' ? { body: location({ simulation_count: 3 }) } : undefined));
    const { user } = renderApp('/locations/l1');
    expect(await screen.findByTestId('simulate-location')).toHaveAttribute('href', '/simulation?location=l1');
    expect(screen.getByRole('link', { name: 'Heatmap de la photo' })).toHaveAttribute('href', '/heatmap/ml1');
    await user.click(screen.getByTestId('delete-location'));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog).toHaveTextContent('3 simulations faites avec cet emplacement seront aussi supprimées.');
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type * as api from '@/lib/api';
import { uploadMedia } from '@/lib/api';
import { fakeMedia, mockApi, type ApiCall } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
vi.mock('@/lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof api>()),
  uploadMedia: vi.fn(),
}));

const upload = vi.mocked(uploadMedia);

function location(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name,
    address: null,
    city: 'Évry',
    postal_code: '91000',
    country: null,
    latitude: null,
    longitude: null,
    format: 'bus_shelter',
    panel_width_cm: null,
    panel_height_cm: null,
    illumination: 'none',
    orientation_deg: null,
    photo_media_id: null,
    photo: null,
    panel_quad: null,
    notes: null,
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    ...extra,
  };
}

/** Part of what `GET /locations/formats` answers: two regions, a screen and the custom one. */
const FORMATS = [
  { format: 'billboard_4x3', region: 'fr', width_cm: 400, height_cm: 300, width_mm: 4000, height_mm: 3000, width_px: null, height_px: null },
  { format: 'mupi_2m2', region: 'fr', width_cm: 120, height_cm: 176, width_mm: 1200, height_mm: 1760, width_px: null, height_px: null },
  { format: 'bus_shelter', region: 'fr', width_cm: 120, height_cm: 176, width_mm: 1200, height_mm: 1760, width_px: null, height_px: null },
  { format: 'uk_48_sheet', region: 'uk', width_cm: 610, height_cm: 305, width_mm: 6096, height_mm: 3048, width_px: null, height_px: null },
  { format: 'digital_75in_portrait', region: 'digital', width_cm: 93, height_cm: 166, width_mm: 934, height_mm: 1660, width_px: 1080, height_px: 1920 },
  { format: 'other', region: 'custom', width_cm: null, height_cm: null, width_mm: null, height_mm: null, width_px: null, height_px: null },
];

/** Answers the formats, then asks `handler`. */
function withFormats(handler: Parameters<typeof mockApi>[0]): Parameters<typeof mockApi>[0] {
  return (call) => (call.method === 'GET' && call.path === '/locations/formats' ? { body: FORMATS } : handler(call));
}

beforeEach(() => {
  resetAuthMock(fakeSession());
  upload.mockReset();
});

describe('locations page', () => {
  it('searches as you type, debounced, keeping the query in the URL', async () => {
    const queries: string[] = [];
    mockApi(({ path, query }) => {
      if (path !== '/locations') return undefined;
      const q = query.get('q') ?? '';
      queries.push(q);
      const items = q === '' || q === 'evry' ? [location('l1', 'Gare d’Évry')] : [];
      return { body: { items, next_cursor: null } };
    });
    const { user, router } = renderApp('/locations');
    const list = await screen.findByRole('list', { name: 'Vos emplacements' });
    expect(within(list).getByRole('link', { name: 'Gare d’Évry' })).toHaveAttribute('href', '/locations/l1');
    expect(list).toHaveTextContent('91000 Évry');

    await user.type(screen.getByPlaceholderText('Rechercher un emplacement...'), 'evry');
    await waitFor(() => expect(router.state.location.search).toBe('?q=evry'));
    await waitFor(() => expect(queries).toContain('evry'));
    // Debounced: no request for the partial words typed in between.
    expect(queries).not.toContain('e');
    expect(queries).not.toContain('ev');

    await user.clear(screen.getByPlaceholderText('Rechercher un emplacement...'));
    await user.type(screen.getByPlaceholderText('Rechercher un emplacement...'), 'zzz');
    expect(await screen.findByText('Aucun emplacement ne correspond à « zzz ».')).toBeInTheDocument();
  });

  it('reads the query from the URL', async () => {
    mockApi(({ path, query }) =>
      path === '/locations' ? { body: { items: [location('l1', `Trouvé ${query.get('q')}`)], next_cursor: null } } : undefined,
    );
    renderApp('/locations?q=gare');
    expect(await screen.findByText('Trouvé gare')).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Rechercher un emplacement...')).toHaveValue('gare');
  });

  it('filters and sorts the list, keeping both in the URL, and switches to the map', async () => {
    const lists: URLSearchParams[] = [];
    mockApi(({ method, path, query }) => {
      if (method !== 'GET') return undefined;
      if (path === '/locations/facets') return { body: { cities: [{ name: 'Lyon', count: 2 }], formats: [{ name: 'mupi_2m2', count: 1 }] } };
      if (path === '/locations') {
        lists.push(query);
        return { body: { items: query.get('format') === 'uk_48_sheet' ? [] : [location('l1', 'Bellecour', { viewing: { speed_kmh: 5, letter_height_mm: 176, legible_distance_m: 60.5, comfortable_distance_m: 30.3, time_in_view_s: 13.5 } })], next_cursor: null } };
      }
      if (path === '/locations/positions') return { body: { items: [], truncated: false } };
      if (path === '/map') return { body: { tiles_url: '/tiles/{z}/{x}/{y}.png', attribution: 'Test', max_zoom: 19 } };
      return undefined;
    });
    const { user, router } = renderApp('/locations?format=uk_48_sheet');
    // A value the facets do not have (a link) stays selected; nothing matches it.
    expect(await screen.findByText('Aucun emplacement ne correspond à ces filtres.')).toBeInTheDocument();
    expect(screen.getByTestId('format-filter')).toHaveValue('uk_48_sheet');
    // Both the toolbar and the empty list offer to clear the filters.
    expect(screen.getAllByRole('button', { name: 'Effacer les filtres' })).toHaveLength(2);
    await user.click(screen.getByTestId('clear-location-filters'));
    const card = await screen.findByTestId('location-card');
    expect(card).toHaveTextContent('13,5 s de lecture');
    await user.selectOptions(screen.getByTestId('city-filter'), 'Lyon (2)');
    await user.selectOptions(screen.getByTestId('audience-filter'), 'Piétons');
    await user.selectOptions(screen.getByTestId('location-sort'), 'Ville');
    await waitFor(() => expect(router.state.location.search).toBe('?city=Lyon&audience=pedestrian&sort=city'));
    const last = lists[lists.length - 1];
    expect([last.get('city'), last.get('audience'), last.get('sort')]).toEqual(['Lyon', 'pedestrian', 'city']);
    await user.click(screen.getByRole('button', { name: 'Carte' }));
    await waitFor(() => expect(router.state.location.search).toContain('view=map'));
    expect(await screen.findByTestId('locations-map')).toHaveTextContent('0 emplacement sur la carte.');
    // The order does not apply to the map.
    expect(screen.queryByTestId('location-sort')).not.toBeInTheDocument();
  });

  it('creates a location: field errors, photo with GPS, keyboard corner nudging', async () => {
    const posts: ApiCall[] = [];
    mockApi(withFormats((call) => {
      if (call.path === '/locations' && call.method === 'GET') return { body: { items: [], next_cursor: null } };
      if (call.path === '/locations' && call.method === 'POST') {
        posts.push(call);
        const body = call.body as Record<string, unknown>;
        if (!body.name) return { status: 422, body: { code: 'validation_failed', message: 'x', details: { fields: { name: 'required', panel_width_cm: 'out_of_range' } } } };
        return { status: 201, body: location('l2', body.name as string) };
      }
      return undefined;
    }));
    upload.mockImplementation((_file, options) => {
      options?.onProgress?.(10, 10);
      return Promise.resolve(fakeMedia('photo', { width: 800, height: 600, gps: { latitude: 48.625, longitude: 2.44 } }) as never);
    });

    const { user, router } = renderApp('/locations/new');
    expect(await screen.findByRole('heading', { level: 1, name: 'Nouvel emplacement' })).toBeInTheDocument();
    await user.type(screen.getByLabelText('Largeur du panneau (m)'), '0');
    await user.click(screen.getByRole('button', { name: "Créer l'emplacement" }));
    expect(await screen.findByTestId('error-name')).toHaveTextContent('Ce champ est obligatoire.');
    expect(screen.getByLabelText(/^Nom/)).toHaveAccessibleDescription('Ce champ est obligatoire.');
    expect(screen.getByTestId('error-panel_width_cm')).toHaveTextContent('Cette valeur est en dehors des limites autorisées.');
    // Focus goes to the first refused field.
    await waitFor(() => expect(screen.getByLabelText(/^Nom/)).toHaveFocus());

    await user.type(screen.getByLabelText(/^Nom/), 'Gare d’Évry');
    await user.selectOptions(screen.getByLabelText('Format'), 'billboard_4x3');
    await user.upload(screen.getByLabelText('Choisir une photo'), new File(['jpg'], 'site.jpg', { type: 'image/jpeg' }));
    expect(await screen.findByText('Latitude et longitude reprises de la photo.')).toBeInTheDocument();
    expect(screen.getByLabelText('Latitude')).toHaveValue('48.625');
    expect(screen.getByLabelText('Longitude')).toHaveValue('2.44');

    const topLeft = screen.getByRole('button', { name: 'Coin haut gauche' });
    expect(screen.getAllByRole('button', { name: /^Coin / })).toHaveLength(4);
    expect(topLeft).toHaveAttribute('data-x', '0.2500');
    topLeft.focus();
    await user.keyboard('{ArrowRight}');
    expect(topLeft).toHaveAttribute('data-x', '0.2520');
    await user.keyboard('{Shift>}{ArrowDown}{/Shift}');
    expect(topLeft).toHaveAttribute('data-y', '0.2700');

    await user.clear(screen.getByLabelText('Largeur du panneau (m)'));
    await user.type(screen.getByLabelText('Largeur du panneau (m)'), '4');
    await user.click(screen.getByRole('button', { name: "Créer l'emplacement" }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
    expect(screen.getByRole('status', { name: 'Notifications' })).toHaveTextContent('Emplacement « Gare d’Évry » enregistré.');
    const body = posts[1].body as Record<string, unknown>;
    expect(body).toMatchObject({
      name: 'Gare d’Évry',
      format: 'billboard_4x3',
      illumination: 'none',
      latitude: 48.625,
      longitude: 2.44,
      panel_width_cm: 400,
      panel_height_cm: null,
      photo_media_id: 'photo',
      city: null,
    });
    expect(body.panel_quad).toEqual([
      { x: 0.252, y: 0.27 },
      { x: 0.75, y: 0.25 },
      { x: 0.75, y: 0.75 },
      { x: 0.25, y: 0.75 },
    ]);
  });

  it('fills the panel size from the format, unless a size of ones own was typed', async () => {
    mockApi(withFormats((call) => (call.path === '/locations' && call.method === 'GET' ? { body: { items: [], next_cursor: null } } : undefined)));
    const { user } = renderApp('/locations/new');
    const format = await screen.findByLabelText('Format');
    await within(format).findByRole('option', { name: 'Panneau 4 × 3 m (12 m²)' });
    const [width, height] = [screen.getByLabelText('Largeur du panneau (m)'), screen.getByLabelText('Hauteur du panneau (m)')];
    // Grouped by region, in the server's order; 12 m² is the 4 × 3 panel: one choice, not two.
    expect(within(format).getAllByRole('group').map((group) => group.getAttribute('label'))).toEqual(['France', 'Royaume-Uni', 'Écrans numériques', 'Autres']);
    expect(within(format).queryByRole('option', { name: 'Panneau 12 m²' })).not.toBeInTheDocument();
    const values = () => [width, height].map((input) => (input as HTMLInputElement).value);
    await user.selectOptions(format, 'Panneau 4 × 3 m (12 m²)');
    expect(values()).toEqual(['4', '3']);
    expect(screen.getByTestId('panel-area')).toHaveTextContent('Surface : 12 m²');
    await user.selectOptions(format, 'Mobilier urbain 2 m² (MUPI, 120 × 176 cm)');
    expect(values()).toEqual(['1.2', '1.76']);
    await user.clear(width);
    await user.type(width, '1,18');
    await user.selectOptions(format, 'Panneau 4 × 3 m (12 m²)');
    expect(values()).toEqual(['1,18', '1.76']);
    // A screen format fills in its pixels too.
    await user.selectOptions(format, 'Écran 75 pouces vertical (1080 × 1920 px)');
    expect(screen.getByLabelText("Largeur de l'écran (pixels)")).toHaveValue('1080');
    expect(screen.getByLabelText("Hauteur de l'écran (pixels)")).toHaveValue('1920');
  });

  it('shows the time in view while the viewing conditions are typed, and sends them', async () => {
    const posts: ApiCall[] = [];
    mockApi(
      withFormats((call) => {
        if (call.path === '/locations' && call.method === 'GET') return { body: { items: [], next_cursor: null } };
        if (call.path === '/locations' && call.method === 'POST') {
          posts.push(call);
          return { status: 201, body: location('l3', 'Périphérique') };
        }
        return undefined;
      }),
    );
    const { user, router } = renderApp('/locations/new');
    const format = await screen.findByLabelText('Format');
    await within(format).findByRole('option', { name: 'Panneau 4 × 3 m (12 m²)' });
    await user.type(screen.getByLabelText(/^Nom/), 'Périphérique');
    expect(screen.getByTestId('viewing-summary')).toHaveTextContent('Renseignez la hauteur du panneau');
    await user.selectOptions(format, 'Panneau 4 × 3 m (12 m²)');
    await user.selectOptions(screen.getByLabelText('Public'), 'Automobilistes');
    // The audience's speed shows as the field's placeholder.
    expect(screen.getByLabelText("Vitesse d'approche (km/h)")).toHaveAttribute('placeholder', '50 km/h par défaut');
    await user.type(screen.getByLabelText('Distance de vue la plus courte (m)'), '10');
    await user.type(screen.getByLabelText('Distance de vue la plus longue (m)'), '150');
    // 300 mm reads from 103 m (comfortably from 52 m); passed 10 m away: 96.9 m at 50 km/h.
    expect(screen.getByTestId('viewing-summary')).toHaveTextContent('Temps de lecture : 7,0 s');
    expect(screen.getByTestId('viewing-summary')).toHaveTextContent("(300 mm) se lit confortablement jusqu'à 52 m, au mieux jusqu'à 103 m, à 50 km/h");
    await user.type(screen.getByLabelText("Vitesse d'approche (km/h)"), '90');
    expect(screen.getByTestId('viewing-summary')).toHaveTextContent('Temps de lecture : 3,9 s');
    await user.click(screen.getByRole('button', { name: "Créer l'emplacement" }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
    expect(posts[0].body).toMatchObject({
      format: 'billboard_4x3',
      panel_width_cm: 400,
      panel_height_cm: 300,
      audience: 'road',
      viewing_distance_min_m: 10,
      viewing_distance_max_m: 150,
      speed_kmh: 90,
      screen_width_px: null,
    });
  });

  it('asks before leaving a form with unsaved changes, and not when nothing changed', async () => {
    mockApi((call) => (call.method === 'GET' && /^\/(locations|creatives)$/.test(call.path) ? { body: { items: [], next_cursor: null } } : undefined));
    const { user, router } = renderApp('/locations/new');
    const name = await screen.findByLabelText(/^Nom/);
    // Nothing typed: leaving asks nothing.
    await user.click(screen.getByRole('link', { name: 'Créations' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    act(() => void router.navigate('/locations/new'));
    await user.type(await screen.findByLabelText(/^Nom/), 'Gare de Lyon');
    await user.click(screen.getByRole('link', { name: 'Créations' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Quitter sans enregistrer ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Rester' }));
    expect(router.state.location.pathname).toBe('/locations/new');
    expect(screen.getByLabelText(/^Nom/)).toHaveValue('Gare de Lyon');
    await user.click(screen.getByRole('link', { name: 'Créations' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Quitter sans enregistrer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(name).not.toBeInTheDocument();
  });

  it('shows a failed photo upload with its translated message', async () => {
    const { ApiError } = await vi.importActual<typeof api>('@/lib/api');
    upload.mockRejectedValue(new ApiError(415, 'unsupported_media_type', 'x'));
    const { user } = renderApp('/locations/new');
    await user.upload(await screen.findByLabelText('Choisir une photo'), new File(['text'], 'x.png', { type: 'image/png' }));
    expect(await screen.findByTestId('photo-error')).toHaveTextContent("Ce fichier n'est pas une image JPEG, PNG ou WebP.");
  });

  it('edits and deletes a location after confirming', async () => {
    const calls: string[] = [];
    mockApi(({ method, path }) => {
      calls.push(`${method} ${path}`);
      if (path === '/locations/l1' && method === 'GET')
        return {
          body: location('l1', 'Abribus', {
            photo_media_id: 'p',
            photo: fakeMedia('p'),
            panel_quad: [
              { x: 0.1, y: 0.1 },
              { x: 0.9, y: 0.1 },
              { x: 0.9, y: 0.9 },
              { x: 0.1, y: 0.9 },
            ],
          }),
        };
      if (path === '/locations/l1' && method === 'DELETE') return { status: 204 };
      if (path === '/locations') return { body: { items: [], next_cursor: null } };
      return undefined;
    });
    const { user, router } = renderApp('/locations/l1');
    expect(await screen.findByRole('heading', { level: 1, name: "Modifier l'emplacement" })).toBeInTheDocument();
    expect(await screen.findByLabelText(/^Nom/)).toHaveValue('Abribus');
    expect(screen.getByRole('button', { name: 'Coin bas droit' })).toHaveAttribute('data-x', '0.9000');

    await user.click(screen.getByRole('button', { name: "Supprimer l'emplacement" }));
    const dialog = screen.getByRole('alertdialog', { name: 'Supprimer cet emplacement ?' });
    expect(dialog).toHaveTextContent('« Abribus » sera supprimé définitivement.');
    await user.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: "Supprimer l'emplacement" }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Supprimer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
    expect(calls).toContain('DELETE /locations/l1');
    expect(screen.getByRole('status', { name: 'Notifications' })).toHaveTextContent('Emplacement « Abribus » supprimé.');
  });
});

describe('locations search and history', () => {
  beforeEach(() => resetAuthMock(fakeSession()));

  it('follows ?q= when the URL changes under the field', async () => {
    mockApi(({ path }) => (path === '/locations' ? { body: { items: [], next_cursor: null } } : undefined));
    const { router } = renderApp('/locations?q=gare');
    const field = await screen.findByPlaceholderText('Rechercher un emplacement...');
    expect(field).toHaveValue('gare');
    await act(() => router.navigate('/locations?q=abribus'));
    expect(field).toHaveValue('abribus');
  });
});

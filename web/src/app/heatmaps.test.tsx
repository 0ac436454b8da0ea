import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type * as api from '@/lib/api';
import { uploadMedia } from '@/lib/api';
import { i18n } from '@/lib/i18n';
import { calls, fakeMedia, mockApi, type ApiHandler } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { withEventStream } from '@/testing/event-stream';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
vi.mock('@/lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof api>()),
  uploadMedia: vi.fn(),
}));

const upload = vi.mocked(uploadMedia);

// ---------- Fixtures (docs/architecture/heatmaps.md) ----------

function result(overrides: Record<string, unknown> = {}) {
  return {
    score: 72.4,
    focus: 63.5,
    clarity: 82,
    top10_share: 0.67,
    entropy: 0.81,
    hotspots: [
      { rank: 1, x: 0.2, y: 0.2, rect: { x: 0.1, y: 0.1, width: 0.2, height: 0.2 }, share: 0.31, area: 0.04 },
      { rank: 2, x: 0.8, y: 0.8, rect: { x: 0.7, y: 0.7, width: 0.2, height: 0.2 }, share: 0.12, area: 0.04 },
    ],
    faces: [],
    texts: [],
    // 4 × 2 cells: the top-left cell holds half of all attention.
    grid: { width: 4, height: 2, values: [700, 100, 100, 100, 100, 100, 100, 100] },
    urls: {
      map: '/api/v1/files/map/original?exp=1&sig=a',
      overlay: '/api/v1/files/overlay/original?exp=1&sig=a',
      fog: '/api/v1/files/fog/original?exp=1&sig=a',
      overlay_thumbnail: '/api/v1/files/overlay/thumbnail?exp=1&sig=a',
    },
    ...overrides,
  };
}

/** A model v3 result: the full map's figures, the first glance's (one hotspot, bottom right) and both sets of images. */
function resultWithGlance() {
  const base = result();
  return {
    ...base,
    model: 'v3',
    glance: {
      score: 81,
      focus: 75,
      clarity: 90,
      top10_share: 0.8,
      entropy: 0.6,
      hotspots: [{ rank: 1, x: 0.8, y: 0.8, rect: { x: 0.7, y: 0.7, width: 0.2, height: 0.2 }, share: 0.55, area: 0.04 }],
      faces: [],
      texts: [],
      grid: { width: 4, height: 2, values: [100, 100, 100, 100, 100, 100, 100, 900] },
    },
    urls: {
      ...base.urls,
      glance: {
        map: '/api/v1/files/glance-map/original?exp=1&sig=a',
        overlay: '/api/v1/files/glance-overlay/original?exp=1&sig=a',
        fog: '/api/v1/files/glance-fog/original?exp=1&sig=a',
      },
    },
  };
}

function item(id: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    position: 0,
    status,
    error: status === 'failed' ? { code: 'invalid_image', message: 'cannot decode' } : null,
    source: fakeMedia(`m-${id}`, { original_name: `${id}.png` }),
    attempts: 1,
    started_at: null,
    finished_at: null,
    result: status === 'done' ? result() : null,
    aois: [] as unknown[],
    ...extra,
  };
}

function heatmap(items: Array<ReturnType<typeof item>>, extra: Record<string, unknown> = {}) {
  return {
    id: 'h1',
    name: 'Campagne été',
    status: 'done',
    item_count: items.length,
    done_count: items.filter((i) => i.status === 'done').length,
    failed_count: items.filter((i) => i.status === 'failed').length,
    score: 72.4,
    best_score: 72.4,
    thumbnail: '/api/v1/files/m-a/thumbnail?exp=1&sig=a',
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T10:00:00.000Z',
    items,
    ...extra,
  };
}

function summary(extra: Record<string, unknown> = {}) {
  const rest: Partial<ReturnType<typeof heatmap>> = heatmap([item('a', 'done')], extra);
  delete rest.items;
  return rest;
}

const page = (items: unknown[]) => ({ body: { items, next_cursor: null } });

beforeEach(() => {
  resetAuthMock(fakeSession());
  upload.mockReset();
});

// ---------- /heatmap ----------

describe('heatmap list', () => {
  it('shows the empty state, the link to create one, and no chat widget', async () => {
    mockApi(({ path }) => (path === '/heatmaps' ? page([]) : undefined));
    renderApp('/heatmap');
    expect(await screen.findByText(/Vous n'avez pas encore de heatmap\./)).toBeInTheDocument();
    expect(screen.getByTestId('new-heatmap')).toHaveAttribute('href', '/heatmap/new');
    expect(screen.queryByTestId('chat-widget')).not.toBeInTheDocument();
    // Nothing to search or sort: no toolbar over the empty library.
    expect(screen.queryByRole('search')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Rechercher')).not.toBeInTheDocument();
  });

  it('keeps the toolbar when a search matches nothing, so that it can be cleared', async () => {
    mockApi(({ path, query }) => {
      if (path !== '/heatmaps') return undefined;
      const q = (query.get('q') ?? '').toLowerCase();
      return page([summary()].filter((h) => (h.name ?? '').toLowerCase().includes(q)));
    });
    renderApp('/heatmap?q=zzz');
    expect(await screen.findByText('Aucune heatmap ne correspond à « zzz ».')).toBeInTheDocument();
    expect(screen.getByRole('search')).toBeInTheDocument();
    expect(screen.getByLabelText('Rechercher')).toHaveValue('zzz');
    fireEvent.click(screen.getByRole('button', { name: 'Effacer la recherche' }));
    expect(await screen.findByRole('link', { name: 'Campagne été' })).toBeInTheDocument();
    expect(screen.getByLabelText('Rechercher')).toHaveValue('');
    expect(screen.getByRole('search')).toBeInTheDocument();
  });

  it('keeps the toolbar on an empty library while a search is typed or shown', async () => {
    mockApi(({ path }) => (path === '/heatmaps' ? page([]) : undefined));
    renderApp('/heatmap?q=été');
    expect(await screen.findByText('Aucune heatmap ne correspond à « été ».')).toBeInTheDocument();
    expect(screen.getByRole('search')).toBeInTheDocument();
    fireEvent.change(screen.getByLabelText('Rechercher'), { target: { value: '' } });
    // Once the empty search reaches the list, the library shows empty and the toolbar goes.
    expect(await screen.findByText(/Vous n'avez pas encore de heatmap\./)).toBeInTheDocument();
    expect(screen.queryByRole('search')).not.toBeInTheDocument();
  });

  it('lists heatmaps as cards with thumbnail, name, date, status and score', async () => {
    mockApi(({ path }) =>
      path === '/heatmaps'
        ? page([
            summary(),
            summary({ id: 'h2', name: 'Hiver', status: 'processing', score: null, best_score: null }),
            summary({ id: 'h3', name: 'A/B', item_count: 2, score: 50, best_score: 81.4 }),
          ])
        : undefined,
    );
    renderApp('/heatmap');
    const list = await screen.findByRole('list', { name: 'Vos heatmaps' });
    const [first, second, third] = within(list).getAllByTestId('heatmap-card');
    expect(within(first).getByRole('link', { name: 'Campagne été' })).toHaveAttribute('href', '/heatmap/results/h1');
    expect(first.querySelector('img')).toHaveAttribute('src', '/api/v1/files/m-a/thumbnail?exp=1&sig=a');
    expect(first).toHaveTextContent('Créée le');
    expect(first).toHaveTextContent('Terminée');
    expect(first).toHaveTextContent('Score : 72/100');
    expect(second).toHaveTextContent('En cours');
    expect(second).toHaveTextContent('Pas encore de score');
    // Several images: the best one's score, never a mean of different images.
    expect(third).toHaveTextContent('Meilleur score : 81/100');
  });

  it('searches by name and sorts, keeping both in the address', async () => {
    const asked: string[] = [];
    mockApi(({ path, query }) => {
      if (path !== '/heatmaps') return undefined;
      asked.push(`${query.get('q') ?? ''}|${query.get('sort') ?? ''}`);
      const q = query.get('q') ?? '';
      const items = [summary(), summary({ id: 'h2', name: 'Hiver' })].filter((h) => (h.name ?? '').toLowerCase().includes(q.toLowerCase()));
      return page(query.get('sort') === 'name_desc' ? items.reverse() : items);
    });
    const { router } = renderApp('/heatmap');
    await screen.findByRole('list', { name: 'Vos heatmaps' });
    fireEvent.change(screen.getByTestId('heatmap-sort'), { target: { value: 'name_desc' } });
    await waitFor(() => expect(router.state.location.search).toBe('?sort=name_desc'));
    fireEvent.change(screen.getByLabelText('Rechercher'), { target: { value: 'hiv' } });
    await waitFor(() => expect(asked).toContain('hiv|name_desc'));
    expect(new URLSearchParams(router.state.location.search).get('q')).toBe('hiv');
    const list = await screen.findByRole('list', { name: 'Vos heatmaps' });
    await waitFor(() => expect(within(list).getAllByTestId('heatmap-card')).toHaveLength(1));
    fireEvent.change(screen.getByLabelText('Rechercher'), { target: { value: 'zzz' } });
    expect(await screen.findByText('Aucune heatmap ne correspond à « zzz ».')).toBeInTheDocument();
  });

  it('dates the cards the British way in English (day, month, year)', async () => {
    await i18n.changeLanguage('en');
    mockApi(({ path }) => (path === '/heatmaps' ? page([summary()]) : undefined));
    renderApp('/heatmap');
    const card = await screen.findByTestId('heatmap-card');
    expect(card).toHaveTextContent(/Created on 21 Nov 2026, \d{2}:\d{2}/);
    expect(card).not.toHaveTextContent('Nov 21');
  });

  it('deletes after confirmation, and the card disappears', async () => {
    let items = [summary(), summary({ id: 'h2', name: 'Hiver' })];
    const deleted: string[] = [];
    mockApi(({ method, path }) => {
      if (method === 'GET' && path === '/heatmaps') return page(items);
      if (method === 'DELETE' && path.startsWith('/heatmaps/')) {
        deleted.push(path);
        items = items.filter((h) => `/heatmaps/${h.id}` !== path);
        return { status: 204 };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap');
    await screen.findByRole('link', { name: 'Hiver' });
    await user.click(screen.getByRole('button', { name: 'Supprimer la heatmap « Hiver »' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Supprimer cette heatmap ?' });
    expect(dialog).toHaveTextContent('« Hiver » et ses résultats seront supprimés définitivement.');
    expect(within(dialog).getByRole('button', { name: 'Annuler' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Supprimer' }));
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Hiver' })).not.toBeInTheDocument());
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Campagne été' })).toBeInTheDocument();
    expect(deleted).toEqual(['/heatmaps/h2']);
  });

  it.each([
    ['fr', 'Erreur lors de la suppression de la heatmap', 'Supprimer la heatmap « Campagne été »', 'Supprimer'],
    ['en', 'Error deleting heatmap', 'Delete the heatmap “Campagne été”', 'Delete'],
  ])('shows the deletion error in an alert (%s)', async (language, message, deleteLabel, confirm) => {
    await i18n.changeLanguage(language);
    mockApi(({ method, path }) => {
      if (method === 'GET' && path === '/heatmaps') return page([summary()]);
      if (method === 'DELETE') return { status: 500, body: { code: 'internal', message: 'oops', details: {} } };
      return undefined;
    });
    const { user } = renderApp('/heatmap');
    await user.click(await screen.findByRole('button', { name: deleteLabel }));
    const dialog = screen.getByRole('alertdialog');
    await user.click(within(dialog).getByRole('button', { name: confirm }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('link', { name: 'Campagne été' })).toBeInTheDocument();
  });
});

// ---------- /heatmap/new ----------

const creative = (id: string, name: string) => ({ id, name, media: fakeMedia(`m-${id}`), brand: null, campaign: null, notes: null });
const location = (id: string, name: string, photo: boolean) => ({ id, name, photo: photo ? fakeMedia(`p-${id}`) : null });

function newPageApi(onCreate: ApiHandler = () => ({ status: 202, body: heatmap([item('a', 'queued')], { status: 'queued' }) })): ApiHandler {
  return (call) => {
    if (call.method === 'GET' && call.path === '/creatives') return page([creative('c1', 'Affiche été'), creative('c2', 'Affiche hiver')]);
    if (call.method === 'GET' && call.path === '/locations') return page([location('l1', 'Gare d’Évry', true), location('l2', 'Sans photo', false)]);
    if (call.method === 'GET' && call.path === '/simulations')
      return page([
        { id: 's1', name: 'Été — Gare d’Évry', output: fakeMedia('r-s1', { kind: 'render' }) },
        { id: 's2', name: 'Brouillon', output: null },
      ]);
    if (call.method === 'POST' && call.path === '/heatmaps') return onCreate(call);
    if (call.method === 'GET' && call.path === '/heatmaps/h1') return { body: heatmap([item('a', 'queued')], { status: 'queued' }) };
    return undefined;
  };
}

describe('heatmap creation', () => {
  it('submitting empty shows both messages at once, next to their fields, and sends nothing', async () => {
    const created: unknown[] = [];
    mockApi(newPageApi((call) => void created.push(call.body)));
    const { user } = renderApp('/heatmap/new');
    await screen.findByRole('heading', { level: 1, name: 'Nouvelle heatmap' });
    await user.click(screen.getByRole('button', { name: 'Générer la heatmap' }));

    const nameError = screen.getByTestId('error-name');
    const imagesError = screen.getByTestId('error-images');
    expect(nameError).toHaveTextContent('Veuillez saisir un nom pour la heatmap.');
    expect(imagesError).toHaveTextContent('Veuillez sélectionner au moins une image.');
    expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toEqual([
      'Veuillez saisir un nom pour la heatmap.',
      'Veuillez sélectionner au moins une image.',
    ]);
    const name = screen.getByLabelText('Nom');
    expect(name).toHaveFocus();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription('Veuillez saisir un nom pour la heatmap.');
    expect(created).toEqual([]);

    // Messages follow the fields as they are fixed.
    await user.type(name, 'Test');
    expect(screen.queryByTestId('error-name')).not.toBeInTheDocument();
    expect(screen.getByTestId('error-images')).toBeInTheDocument();
  });

  it('speaks English too', async () => {
    await i18n.changeLanguage('en');
    mockApi(newPageApi());
    const { user } = renderApp('/heatmap/new');
    await user.click(await screen.findByRole('button', { name: 'Generate heatmap' }));
    expect(screen.getByTestId('error-name')).toHaveTextContent('Please enter a name for the heatmap.');
    expect(screen.getByTestId('error-images')).toHaveTextContent('Please select at least one image.');
    expect(screen.getByLabelText('Name')).toBeInTheDocument();
  });

  it('picks creatives and location photos in order, creates the heatmap and opens its results', async () => {
    const created: unknown[] = [];
    mockApi(
      newPageApi((call) => {
        created.push(call.body);
        return { status: 202, body: heatmap([item('a', 'queued')], { status: 'queued' }) };
      }),
    );
    const { user, router } = renderApp('/heatmap/new');
    const creatives = await screen.findByRole('group', { name: 'Créations' });
    const locations = await screen.findByRole('group', { name: "Photos d'emplacements" });
    expect(within(locations).queryByRole('button', { name: 'Sans photo' })).not.toBeInTheDocument();

    const photo = await within(locations).findByRole('button', { name: 'Gare d’Évry' });
    const summer = within(creatives).getByRole('button', { name: 'Affiche été' });
    expect(summer).toHaveAttribute('aria-pressed', 'false');
    await user.click(photo);
    await user.click(summer);
    await user.click(within(creatives).getByRole('button', { name: 'Affiche hiver' }));
    await user.click(within(creatives).getByRole('button', { name: 'Affiche hiver' })); // unpicked again
    expect(summer).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('selected-count')).toHaveTextContent('2 images sélectionnées');

    await user.type(screen.getByLabelText('Nom'), '  Campagne été  ');
    await user.click(screen.getByRole('button', { name: 'Générer la heatmap' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/heatmap/results/h1'));
    expect(created).toEqual([{ name: 'Campagne été', media_ids: ['p-l1', 'm-c1'] }]);
    expect(await screen.findByRole('heading', { level: 1, name: 'Campagne été' })).toBeInTheDocument();
  });

  it('offers finished renders, not simulations without an image', async () => {
    const created: unknown[] = [];
    mockApi(
      newPageApi((call) => {
        created.push(call.body);
        return { status: 202, body: heatmap([item('a', 'queued')], { status: 'queued' }) };
      }),
    );
    const { user, router } = renderApp('/heatmap/new');
    const renders = await screen.findByRole('group', { name: 'Rendus' });
    const render = await within(renders).findByRole('button', { name: 'Été — Gare d’Évry' });
    expect(within(renders).queryByRole('button', { name: 'Brouillon' })).not.toBeInTheDocument();
    await user.click(render);
    await user.type(screen.getByLabelText('Nom'), 'En situation');
    await user.click(screen.getByRole('button', { name: 'Générer la heatmap' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/heatmap/results/h1'));
    expect(created).toEqual([{ name: 'En situation', media_ids: ['r-s1'] }]);
  });

  it("places the server's field errors next to their fields", async () => {
    mockApi(
      newPageApi(() => ({
        status: 422,
        body: { code: 'validation_failed', message: 'invalid', details: { fields: { name: 'too_long', media_ids: 'not_found' } } },
      })),
    );
    const { user } = renderApp('/heatmap/new');
    await user.click(await screen.findByRole('button', { name: 'Affiche été' }));
    await user.type(screen.getByLabelText('Nom'), 'x');
    await user.click(screen.getByRole('button', { name: 'Générer la heatmap' }));
    expect(await screen.findByTestId('error-name')).toHaveTextContent('Ce texte est trop long.');
    expect(screen.getByTestId('error-images')).toHaveTextContent("Une des images choisies n'existe plus. Retirez-la puis réessayez.");
  });

  it('uploads new images with progress and picks them automatically', async () => {
    mockApi(newPageApi());
    let finish: () => void = () => {};
    upload.mockImplementation((_file, options) => {
      options?.onProgress?.(30, 100);
      return new Promise((resolve) => (finish = () => resolve(fakeMedia('m-new', { original_name: 'nouvelle.png' }) as never)));
    });
    const { user } = renderApp('/heatmap/new');
    await screen.findByRole('group', { name: 'Créations' });
    await user.upload(screen.getByLabelText('Ajouter des images'), new File(['png'], 'nouvelle.png', { type: 'image/png' }));
    expect(screen.getByRole('progressbar', { name: 'Envoi de nouvelle.png' })).toHaveAttribute('aria-valuenow', '30');
    expect(screen.getByRole('button', { name: 'Générer la heatmap' })).toBeDisabled();

    act(() => finish());
    const added = await screen.findByRole('group', { name: 'Images ajoutées' });
    expect(within(added).getByRole('button', { name: 'nouvelle' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('selected-count')).toHaveTextContent('1 image sélectionnée');
    expect(screen.getByRole('button', { name: 'Générer la heatmap' })).toBeEnabled();
  });
});

// ---------- /heatmap/results/:id ----------

describe('heatmap results', () => {
  it('shows the original, the overlay with its opacity and view switch, the score, metrics, analysis and legend', async () => {
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([item('a', 'done')]) } : undefined));
    const { user } = renderApp('/heatmap/results/h1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Campagne été' })).toBeInTheDocument();
    const section = screen.getByRole('region', { name: 'a' });
    expect(within(section).getByRole('img', { name: 'Image originale « a »' })).toHaveAttribute('src', '/api/v1/files/m-a/preview?exp=1&sig=a');

    const overlay = within(section).getByRole('img', { name: "Heatmap d'attention de « a »" });
    expect(overlay).toHaveAttribute('src', '/api/v1/files/overlay/original?exp=1&sig=a');
    expect(overlay.style.opacity).toBe('0.6');
    const slider = within(section).getByRole('slider', { name: 'Opacité' });
    fireEvent.change(slider, { target: { value: '30' } });
    expect(overlay.style.opacity).toBe('0.3');
    expect(slider).toHaveAttribute('aria-valuetext', '30 %');

    // The fog keeps its own opacity, stronger by default so that it shows something.
    await user.click(within(section).getByRole('radio', { name: 'Brouillard' }));
    const fog = within(section).getByRole('img', { name: 'Vue brouillard de « a »' });
    expect(fog).toHaveAttribute('src', '/api/v1/files/fog/original?exp=1&sig=a');
    expect(fog.style.opacity).toBe('0.85');
    expect(slider).toHaveAttribute('aria-valuetext', '85 %');
    fireEvent.change(slider, { target: { value: '70' } });
    expect(fog.style.opacity).toBe('0.7');
    await user.click(within(section).getByRole('radio', { name: 'Heatmap' }));
    expect(within(section).getByRole('img', { name: "Heatmap d'attention de « a »" }).style.opacity).toBe('0.3');
    await user.click(within(section).getByRole('radio', { name: 'Brouillard' }));
    expect(within(section).getByRole('img', { name: 'Vue brouillard de « a »' }).style.opacity).toBe('0.7');
    await user.click(within(section).getByRole('radio', { name: 'Original' }));
    expect(within(section).queryByTestId('heatmap-fog')).not.toBeInTheDocument();
    expect(slider).toBeDisabled();

    const score = within(section).getByTestId('attention-score');
    expect(within(score).getByTestId('score-value')).toHaveTextContent('72');
    expect(score).toHaveTextContent('/100');
    expect(score).toHaveTextContent('Regard bien guidé');
    expect(within(section).getByTestId('metric-focus')).toHaveTextContent('64/100');
    expect(within(section).getByTestId('metric-clarity')).toHaveTextContent('82/100');
    expect(within(section).getByTestId('metric-top10')).toHaveTextContent(/67\s%/);
    expect(within(section).getByTestId('metric-entropy')).toHaveTextContent('0,81');
    // Each card holds its name, its value and its help, in that order (the value beside the name
    // where both fit, under it where not: index.css); "10 %" does not split across lines.
    for (const key of ['focus', 'clarity', 'top10', 'entropy']) {
      const parts = [...within(section).getByTestId(`metric-${key}`).children].map((part) => part.className);
      expect(parts).toEqual(['hm-metric__name', 'hm-metric__value', 'hm-metric__help']);
    }
    expect(within(section).getByTestId('metric-top10').querySelector('.hm-metric__name')?.textContent).toBe('Part du top 10\u00a0%');
    expect(within(section).getByTestId('analysis-summary').textContent.replace(/\s/g, ' ')).toBe(
      "Le regard devrait se poser d'abord en haut à gauche (31 % de l'attention). Il se porte ensuite en bas à droite (12 %).",
    );
    expect(within(section).getByTestId('heatmap-legend')).toHaveTextContent('Les couleurs chaudes signalent plus d\'attention');
    expect(screen.getByTestId('chat-widget')).toBeInTheDocument();
    expect(within(section).queryByTestId('small-image')).not.toBeInTheDocument();
  });

  it('switches between the first glance and the exploration: heatmap, fog, viewing order, analysis and exports follow', async () => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() }));
    const requested: string[] = [];
    mockApi(({ path, query }) => {
      if (path === '/heatmaps/h1') return { body: heatmap([item('a', 'done', { result: resultWithGlance() })]) };
      if (path.endsWith('.png')) {
        requested.push(`${path}?${query.toString()}`);
        return { body: {} };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'a' });
    // It opens on the exploration (the map the scores are computed on).
    expect(within(section).getByRole('radio', { name: 'Exploration (3 s)' })).toBeChecked();
    expect(within(section).getByRole('heading', { level: 3, name: 'Analyse' })).toBeInTheDocument();
    expect(within(section).getAllByTestId('hotspot-marker').map((m) => m.textContent)).toEqual(['1', '2']);

    await user.click(within(section).getByRole('radio', { name: 'Premier regard (1 s)' }));
    const glanceOverlay = within(section).getByRole('img', { name: "Heatmap d'attention de « a »" });
    expect(glanceOverlay).toHaveAttribute('src', '/api/v1/files/glance-overlay/original?exp=1&sig=a');
    expect(glanceOverlay.style.opacity).toBe('0.6');
    expect(within(section).getByTestId('glance-hint')).toHaveTextContent('première seconde');
    expect(within(section).getAllByTestId('hotspot-marker')).toHaveLength(1);
    expect(within(section).getByRole('heading', { level: 3, name: 'Analyse du premier regard (1 s)' })).toBeInTheDocument();
    expect(within(section).getByTestId('analysis-summary').textContent.replace(/\s/g, ' ')).toBe(
      "Le regard devrait se poser d'abord en bas à droite (55 % de l'attention).",
    );
    // The score stays the exploration's.
    expect(within(section).getByTestId('score-value')).toHaveTextContent('72');
    await user.click(within(section).getByRole('radio', { name: 'Brouillard' }));
    expect(within(section).getByRole('img', { name: 'Vue brouillard de « a »' })).toHaveAttribute('src', '/api/v1/files/glance-fog/original?exp=1&sig=a');
    await user.click(within(section).getByTestId('export-menu'));
    await user.click(within(section).getByTestId('export-view'));
    await waitFor(() => expect(requested).toHaveLength(1));
    expect(requested[0]).toBe('/heatmaps/h1/items/a/export.png?view=fog&map=glance&opacity=0.85&areas=1');

    await user.click(within(section).getByRole('radio', { name: 'Exploration (3 s)' }));
    expect(within(section).getByRole('img', { name: 'Vue brouillard de « a »' })).toHaveAttribute('src', '/api/v1/files/fog/original?exp=1&sig=a');
    expect(within(section).queryByTestId('glance-hint')).not.toBeInTheDocument();
    vi.unstubAllGlobals();
  });

  it("leads a simulation render's panel with its probability of a look within the first second, and benchmarks it", async () => {
    const panel = { share: 0.2, area_share: 0.1, visibility: 2, glance_share: 0.3, first_second_probability: 0.64 };
    const standing = (percentile: number | null, count: number) => ({ percentile, count });
    const benchmarks = {
      reference: { name: 'OSIE', images: 700, licence: 'MIT', citation: '…', method: '…', model: 'v3' },
      items: [
        {
          item_id: 'a',
          kind: 'render',
          metrics: {
            score: { value: 72.4, library: standing(null, 1), reference: standing(81.6, 700) },
            panel: { value: 2, library: standing(null, 1), reference: standing(60, 700) },
            first_second: { value: 0.64, library: standing(null, 1), reference: standing(77.3, 700) },
          },
          aois: [],
        },
      ],
    };
    mockApi(({ path }) =>
      path === '/heatmaps/h1'
        ? { body: heatmap([item('a', 'done', { label: { kind: 'simulation', id: 's1', name: 'Été' }, result: { ...resultWithGlance(), panel } })]) }
        : path === '/heatmaps/h1/benchmarks'
          ? { body: benchmarks }
          : undefined,
    );
    renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'Été' });
    expect(within(section).getByTestId('panel-first-second').textContent?.replace(/\s/g, ' ')).toBe(
      'Vu dans la 1re seconde par 64 % des passants.',
    );
    const first = await within(section).findByTestId('benchmark-first_second');
    expect(first.textContent?.replace(/\s/g, ' ')).toMatch(/^Vu dans la 1re seconde 64 %/);
    expect(within(first).getByTestId('benchmark-reference')).toHaveAttribute('data-percentile', '77');
  });

  it('offers no first glance for a result made before it existed', async () => {
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([item('a', 'done')]) } : undefined));
    renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'a' });
    expect(within(section).queryByTestId('moment-switch')).not.toBeInTheDocument();
  });

  it('places the score and each area among the user’s results and the reference, or says how many are missing', async () => {
    const withArea = item('a', 'done', {
      label: { kind: 'creative', id: 'c1', name: 'Affiche été' },
      aois: [
        {
          id: 'z1', item_id: 'a', name: 'Logo', shape: 'rect',
          points: [{ x: 0, y: 0 }, { x: 0.5, y: 0 }, { x: 0.5, y: 0.5 }, { x: 0, y: 0.5 }],
          rect: { x: 0, y: 0, width: 0.5, height: 0.5 },
          attention: { share: 0.5, area: 0.25, relative: 2, seen_rank: 1, seen_early: true },
          created_at: '2026-11-21T10:00:00.000Z', updated_at: '2026-11-21T10:00:00.000Z',
        },
      ],
    });
    const standing = (percentile: number | null, count: number) => ({ percentile, count });
    const benchmarks = {
      reference: { name: 'OSIE', images: 700, licence: 'MIT', citation: '…', method: '…', model: 'v2' },
      items: [
        {
          item_id: 'a',
          kind: 'creative',
          metrics: {
            score: { value: 72.4, library: standing(64.3, 12), reference: standing(81.6, 700) },
            focus: { value: 63.5, library: standing(null, 3), reference: standing(40, 700) },
            clarity: { value: 82, library: standing(50, 12), reference: standing(70.2, 700) },
          },
          aois: [{ aoi_id: 'z1', share: 0.5, library: standing(null, 2), reference: standing(91.4, 4200) }],
        },
      ],
    };
    const fetchMock = mockApi(({ path }) =>
      path === '/heatmaps/h1' ? { body: heatmap([withArea]) } : path === '/heatmaps/h1/benchmarks' ? { body: benchmarks } : undefined,
    );
    renderApp('/heatmap/results/h1');
    const panel = await screen.findByTestId('benchmarks');
    expect(within(panel).getByRole('heading', { name: 'Repères' })).toBeInTheDocument();
    expect(within(panel).getByRole('columnheader', { name: 'Vos créations' })).toBeInTheDocument();
    expect(within(panel).getByRole('columnheader', { name: 'Référence (OSIE)' })).toBeInTheDocument();
    const score = within(panel).getByTestId('benchmark-score');
    expect(within(score).getByTestId('benchmark-library').textContent).toMatch(/^Au-dessus de 64\s%\s\(sur 12\)$/);
    expect(within(score).getByTestId('benchmark-reference')).toHaveAttribute('data-percentile', '82');
    expect(within(panel).getByTestId('benchmark-focus')).toHaveTextContent('Pas encore assez de résultats (3 sur 5)');
    const area = within(panel).getByTestId('benchmark-area');
    expect(area).toHaveTextContent('Logo');
    expect(area).toHaveTextContent('Pas encore assez de zones de ce nom (2 sur 5)');
    expect(within(area).getByTestId('benchmark-reference').textContent).toMatch(/Au-dessus de 91\s%/);
    // One request for the whole heatmap.
    expect(calls(fetchMock).filter((call) => call === 'GET /heatmaps/h1/benchmarks')).toHaveLength(1);
  });

  it('exports the view on screen, the three views side by side and the image’s PDF, made on the server', async () => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() }));
    const requested: string[] = [];
    mockApi(({ path, query }) => {
      if (path === '/heatmaps/h1') return { body: heatmap([item('a', 'done')]) };
      if (path.endsWith('.png') || path.endsWith('.pdf')) {
        requested.push(`${path}?${query.toString()}`);
        return { body: {} };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'a' });
    await user.click(within(section).getByRole('radio', { name: 'Brouillard' }));
    fireEvent.change(within(section).getByRole('slider', { name: 'Opacité' }), { target: { value: '70' } });
    await user.click(within(section).getByTestId('export-menu'));
    await user.click(within(section).getByRole('button', { name: 'Brouillard affiché (PNG, opacité 70 %)' }));
    await waitFor(() => expect(requested).toHaveLength(1));
    await user.click(within(section).getByTestId('export-menu'));
    await user.click(within(section).getByTestId('export-side_by_side'));
    await waitFor(() => expect(requested).toHaveLength(2));
    await user.click(within(section).getByTestId('export-menu'));
    await user.click(within(section).getByRole('button', { name: 'Rapport PDF de cette image' }));
    await waitFor(() => expect(requested).toHaveLength(3));
    expect(requested).toEqual([
      '/heatmaps/h1/items/a/export.png?view=fog&opacity=0.7&areas=1',
      '/heatmaps/h1/items/a/export.png?view=side_by_side&areas=1',
      '/heatmaps/h1/report.pdf?lang=fr&items=a',
    ]);
    vi.unstubAllGlobals();
  });

  it('names an image after its creative and links to it, not after the uploaded file', async () => {
    const labelled = { ...item('a', 'done'), label: { kind: 'creative', id: 'c1', name: 'Affiche été' } };
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([labelled]) } : undefined));
    renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'Affiche été' });
    expect(within(section).getByRole('link', { name: 'Voir la création' })).toHaveAttribute('href', '/creatives/c1');
    expect(within(section).getByRole('img', { name: 'Image originale « Affiche été »' })).toBeInTheDocument();
  });

  it('warns that an image under 300 px on its short side is too small to judge well', async () => {
    const small = { ...item('a', 'done'), source: fakeMedia('m-a', { original_name: 'a.png', width: 640, height: 280 }) };
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([small]) } : undefined));
    renderApp('/heatmap/results/h1');
    const notice = await screen.findByTestId('small-image');
    expect(notice).toHaveTextContent('Image petite (640 × 280 px) : sous 300 px sur son petit côté, la prédiction est moins fiable.');
  });

  it('saves a drawn rectangle as a named area with its share, renames it, and removes it from the keyboard', async () => {
    const sent: unknown[] = [];
    const aoi = (name: string, extra: Record<string, unknown> = {}) => ({
      id: 'z1',
      item_id: 'a',
      name,
      shape: 'rect',
      points: [],
      rect: { x: 0, y: 0, width: 0.5, height: 0.5 },
      attention: { share: 800 / 1400, area: 0.25, relative: 3200 / 1400, seen_rank: 1, seen_early: true, glance_share: 0.4, first_second_probability: 0.62 },
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
      ...extra,
    });
    let current = heatmap([item('a', 'done')]);
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/heatmaps/h1') return { body: current };
      if (method === 'POST' && path === '/heatmaps/h1/items/a/aois') {
        sent.push(body);
        const name = (body as { name: string }).name;
        current = heatmap([{ ...item('a', 'done'), aois: [aoi(name)] }]);
        return { status: 201, body: aoi(name) };
      }
      if (method === 'PATCH' && path === '/heatmaps/h1/items/a/aois/z1') {
        const name = (body as { name: string }).name;
        if (name === 'Titre') return { status: 422, body: { code: 'validation_failed', message: '', details: { fields: { name: 'taken' } } } };
        return { body: aoi(name) };
      }
      if (method === 'DELETE' && path === '/heatmaps/h1/items/a/aois/z1') return { status: 204 };
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const stage = await screen.findByTestId('attention-stage');
    // The image's box (the zoomed canvas inside the stage; at fit, the same as the stage's).
    for (const box of [stage, stage.querySelector('.hm-stage__canvas')!]) {
      box.getBoundingClientRect = () => DOMRect.fromRect({ x: 10, y: 20, width: 400, height: 200 });
    }

    // The top-left quarter of the image, saved at once as "Zone 1".
    fireEvent.pointerDown(stage, { button: 0, pointerId: 1, clientX: 10, clientY: 20 });
    fireEvent.pointerMove(stage, { pointerId: 1, clientX: 110, clientY: 70 });
    fireEvent.pointerUp(stage, { pointerId: 1, clientX: 210, clientY: 120 });
    const share = await screen.findByTestId('area-share');
    expect(sent).toEqual([{ name: 'Zone 1', rect: { x: 0, y: 0, width: 0.5, height: 0.5 } }]);
    expect(share.textContent.replace(/\s/g, ' ')).toBe("57 % de l'attention sur 25 % de la surface, soit ×2,3 par rapport à sa taille");
    expect(screen.getByTestId('area-seen')).toHaveTextContent("Vue dans les premières secondes (n° 1 de l'ordre de lecture)");
    expect(screen.getByTestId('area-first-second')).toHaveTextContent(/Regardée dans la 1re seconde par 62\s% des personnes/);
    expect(screen.getAllByTestId('area-box')).toHaveLength(1);

    // A click without a drag is not an area.
    fireEvent.pointerDown(stage, { button: 0, pointerId: 2, clientX: 300, clientY: 150 });
    fireEvent.pointerUp(stage, { pointerId: 2, clientX: 301, clientY: 150 });
    expect(sent).toHaveLength(1);

    // Renamed in place; a name another area has is refused next to the field.
    const name = screen.getByRole('combobox', { name: 'Nom de la zone 1' });
    await user.clear(name);
    await user.type(name, 'Titre{Enter}');
    expect(await screen.findByText('Une autre zone de cette image porte déjà ce nom.')).toBeInTheDocument();
    expect(name).toHaveAttribute('aria-invalid', 'true');
    await user.clear(name);
    await user.type(name, 'Logo{Enter}');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Supprimer la zone « Logo »' })).toBeInTheDocument());
    expect(screen.queryByText('Une autre zone de cette image porte déjà ce nom.')).not.toBeInTheDocument();

    const remove = screen.getByRole('button', { name: 'Supprimer la zone « Logo »' });
    remove.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.queryByTestId('area-share')).not.toBeInTheDocument());
    expect(screen.queryByTestId('area-box')).not.toBeInTheDocument();
  });

  it('numbers the viewing order on the image and offers the detected faces as areas', async () => {
    const withFace = {
      ...item('a', 'done'),
      result: result({ faces: [{ rect: { x: 0.1, y: 0.1, width: 0.2, height: 0.3 }, confidence: 3, share: 0.2, area: 0.06, relative: 3.3 }] }),
    };
    const sent: unknown[] = [];
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/heatmaps/h1') return { body: heatmap([withFace]) };
      if (method === 'POST' && path === '/heatmaps/h1/items/a/aois') {
        sent.push(body);
        return { status: 201, body: { id: 'f', item_id: 'a', name: 'Visage 1', shape: 'rect', points: [], rect: { x: 0.1, y: 0.1, width: 0.2, height: 0.3 }, attention: null, created_at: '', updated_at: '' } };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const markers = await screen.findAllByTestId('hotspot-marker');
    expect(markers.map((m) => m.textContent)).toEqual(['1', '2']);
    expect(markers[0].style.left).toBe('20%');
    // The key says what the discs are (no area yet: no tag in the key).
    expect(screen.getByTestId('marker-key-order')).toHaveTextContent('Ordre de lecture prévu');
    expect(screen.queryByTestId('marker-key-areas')).not.toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: "Numéroter l'ordre de lecture" }));
    expect(screen.queryByTestId('hotspot-marker')).not.toBeInTheDocument();
    expect(screen.queryByTestId('marker-key')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: '+ Visage 1' }));
    await waitFor(() => expect(sent).toEqual([{ name: 'Visage 1', rect: { x: 0.1, y: 0.1, width: 0.2, height: 0.3 } }]));
    // Once added, it is no longer suggested.
    await waitFor(() => expect(screen.queryByRole('button', { name: '+ Visage 1' })).not.toBeInTheDocument());
  });

  it("copies an image's areas onto the other images of the heatmap", async () => {
    const zone = { id: 'z', item_id: 'a', name: 'Logo', shape: 'rect', points: [], rect: { x: 0, y: 0, width: 0.5, height: 0.5 }, attention: null, created_at: '', updated_at: '' };
    let current = heatmap([{ ...item('a', 'done'), aois: [zone] }, { ...item('b', 'done'), position: 1 }]);
    const copies: unknown[] = [];
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/heatmaps/h1') return { body: current };
      if (method === 'POST' && path === '/heatmaps/h1/aois/copy') {
        copies.push(body);
        current = heatmap([current.items[0], { ...current.items[1], aois: [{ ...zone, id: 'z2', item_id: 'b' }] }]);
        return { body: current };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const [first, second] = await screen.findAllByTestId('heatmap-item');
    expect(within(second).queryByTestId('aoi')).not.toBeInTheDocument();
    expect(within(second).queryByTestId('copy-aois')).not.toBeInTheDocument();
    await user.click(within(first).getByRole('button', { name: "Copier les zones sur l'autre image" }));
    expect(copies).toEqual([{ from_item_id: 'a' }]);
    expect(await within(first).findByText("Zones copiées sur l'autre image (même position relative).")).toHaveAttribute('role', 'status');
    expect(within(second).getByRole('combobox', { name: 'Nom de la zone 1' })).toHaveValue('Logo');
  });

  it('compares two images side by side: one view for both, areas aligned by name, deltas and a verdict', async () => {
    const zone = (itemId: string, name: string, share: number, rank: number | null) => ({
      id: `${itemId}-${name}`,
      item_id: itemId,
      name,
      shape: 'rect',
      points: [],
      rect: { x: 0, y: 0, width: 0.5, height: 0.5 },
      attention: { share, area: 0.25, relative: share / 0.25, seen_rank: rank, seen_early: rank !== null && rank <= 3 },
      created_at: '',
      updated_at: '',
    });
    const a = { ...item('a', 'done'), result: result({ score: 48.6 }), aois: [zone('a', 'Logo', 0.08, 4)] };
    const b = { ...item('b', 'done'), position: 1, result: result({ score: 61.4 }), aois: [zone('b', 'logo', 0.123, 2)] };
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([a, b]) } : undefined));
    const { user } = renderApp('/heatmap/results/h1');
    await user.click(await screen.findByRole('link', { name: 'Comparer les images' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Comparaison : Campagne été' })).toBeInTheDocument();
    const variants = await screen.findAllByTestId('compare-variant');
    expect(variants).toHaveLength(2);
    expect(variants[1]).toHaveTextContent('Score 61/100');
    // One view switch and one slider drive both images.
    await user.click(screen.getByRole('radio', { name: 'Brouillard' }));
    expect(screen.getAllByTestId('heatmap-fog')).toHaveLength(2);
    fireEvent.change(screen.getByTestId('opacity-slider'), { target: { value: '40' } });
    for (const fog of screen.getAllByTestId('heatmap-fog')) expect(fog.style.opacity).toBe('0.4');

    // Areas are light square tags, the viewing order dark discs; a key says which is which, and
    // each image lists its areas by number.
    const key = screen.getByTestId('marker-key');
    expect(within(key).getByTestId('marker-key-order')).toHaveTextContent('Ordre de lecture prévu');
    expect(within(key).getByTestId('marker-key-order').querySelector('.hm-marker')).not.toBeNull();
    expect(within(key).getByTestId('marker-key-areas')).toHaveTextContent("Zone d'intérêt");
    expect(within(key).getByTestId('marker-key-areas').querySelector('.hm-area__label')).not.toBeNull();
    expect(within(variants[0]).getByRole('list', { name: "Zones d'intérêt de « a »" })).toHaveTextContent('1Logo');
    expect(within(variants[1]).getAllByTestId('area-box').map((tag) => [tag.className, tag.textContent])).toEqual([['hm-area__label', '1']]);
    expect(within(variants[1]).getAllByTestId('hotspot-marker')[0]).toHaveClass('hm-marker');
    // The zoom bar is under the image, not over it.
    for (const variant of variants) {
      expect(within(variant).getByTestId('attention-stage')).not.toContainElement(within(variant).getByTestId('zoom-bar'));
    }

    const rows = within(screen.getByTestId('compare-table')).getAllByTestId('compare-row');
    const score = rows.find((row) => row.textContent?.startsWith("Score d'attention"));
    expect(score).toHaveTextContent('49');
    expect(score).toHaveTextContent('61');
    // The difference of the numbers shown (61 − 49), not of the raw scores (12.8, which rounds to 13).
    expect(within(score as HTMLElement).getByTestId('compare-delta')).toHaveTextContent('+12');
    const logo = rows.find((row) => row.textContent?.startsWith("« Logo » : part de l'attention"));
    expect(logo).toHaveTextContent('8 %');
    expect(logo).toHaveTextContent('12 %');
    // 12 % beside 8 %: 4 points (the raw shares, 12.3 % and 8 %, are 4.3 apart).
    expect(within(logo as HTMLElement).getByTestId('compare-delta').textContent?.replace(/\s/g, ' ')).toBe('+4 pts');
    expect(logo).toHaveTextContent("n° 2 de l'ordre de lecture");
    const verdict = screen.getByTestId('compare-verdict');
    expect(verdict).toHaveTextContent("« b » l'emporte sur le score d'attention (61 contre 49).");
    expect(verdict.textContent?.replace(/\s/g, ' ')).toContain("« b » donne le plus d'attention à « Logo » (12 % contre 8 %).");
  });

  it('a failed item says so and retries; the other items are unaffected', async () => {
    let current = heatmap([item('a', 'done'), { ...item('b', 'failed'), position: 1 }], { status: 'partial' });
    const retried: string[] = [];
    mockApi(({ method, path }) => {
      if (method === 'GET' && path === '/heatmaps/h1') return { body: current };
      if (method === 'POST' && path === '/heatmaps/h1/items/b/retry') {
        retried.push(path);
        const queued = { ...item('b', 'queued'), position: 1 };
        current = { ...current, status: 'processing', items: [current.items[0], queued] };
        return { status: 202, body: queued };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    const failed = await screen.findByRole('region', { name: 'b' });
    expect(within(failed).getByRole('alert')).toHaveTextContent('Échec de la génération de la heatmap');
    expect(failed).toHaveTextContent("L'image n'a pas pu être lue");
    const done = screen.getByRole('region', { name: 'a' });
    expect(within(done).getByTestId('score-value')).toHaveTextContent('72');

    await user.click(within(failed).getByRole('button', { name: 'Réessayer' }));
    expect(await within(failed).findByText('En attente de traitement…')).toBeInTheDocument();
    expect(within(failed).queryByRole('alert')).not.toBeInTheDocument();
    expect(retried).toEqual(['/heatmaps/h1/items/b/retry']);
    expect(within(done).getByTestId('score-value')).toHaveTextContent('72');
  });

  it("names the best image's score in the summary, never a mean of different images", async () => {
    const low = { ...item('a', 'done'), result: result({ score: 41.2 }) };
    const high = { ...item('b', 'done'), position: 1, result: result({ score: 68.6 }) };
    const pending = { ...item('c', 'processing'), position: 2 };
    mockApi(({ method, path }) => (method === 'GET' && path === '/heatmaps/h1' ? { body: heatmap([low, high, pending], { score: 54.9 }) } : undefined));
    renderApp('/heatmap/results/h1');
    const summary = await screen.findByTestId('heatmap-summary');
    expect(await within(summary).findByTestId('best-score')).toHaveTextContent('Meilleur score : 69/100 (b)');
    expect(summary).not.toHaveTextContent('55');
    expect(summary).not.toHaveTextContent(/moyen/i);
  });

  it('shows the English failure and retry texts', async () => {
    await i18n.changeLanguage('en');
    mockApi(({ path }) => (path === '/heatmaps/h1' ? { body: heatmap([item('b', 'failed')], { status: 'failed' }) } : undefined));
    renderApp('/heatmap/results/h1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to generate heatmap');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('follows live events without a reload: processing, then the result', async () => {
    let current = heatmap([item('a', 'queued')], { status: 'queued', score: null });
    const server = withEventStream(({ method, path }) => (method === 'GET' && path === '/heatmaps/h1' ? { body: current } : undefined));
    renderApp('/heatmap/results/h1');
    const section = await screen.findByRole('region', { name: 'a' });
    expect(within(section).getByRole('status')).toHaveTextContent('En attente de traitement…');

    await waitFor(() => expect(server.connected()).toBe(true));
    act(() => server.send('ready', {}));
    current = heatmap([item('a', 'processing')], { status: 'processing', score: null });
    act(() => server.send('heatmap_item', { heatmap_id: 'h1', item_id: 'a', status: 'processing', score: null, error: null }));
    expect(await within(section).findByText("Analyse de l'attention en cours…")).toBeInTheDocument();

    current = heatmap([item('a', 'done')]);
    act(() => server.send('heatmap_item', { heatmap_id: 'h1', item_id: 'a', status: 'done', score: 72.4, error: null }));
    expect(await within(section).findByTestId('score-value')).toHaveTextContent('72');
    expect(within(section).getByTestId('heatmap-overlay')).toBeInTheDocument();
  });
});

// ---------- /heatmap/:mediaId ----------

describe('share links', () => {
  it('makes a read-only link, shows it once to copy, lists it, and revokes it', async () => {
    const made = { id: 's1', token: 'a'.repeat(32), path: `/shared/${'a'.repeat(32)}`, expires_at: '2026-11-30T10:00:00.000Z', expired: false, created_at: '2026-11-23T10:00:00.000Z' };
    let links: unknown[] = [];
    const bodies: unknown[] = [];
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/heatmaps/h1') return { body: heatmap([item('a', 'done')]) };
      if (method === 'GET' && path === '/heatmaps/h1/shares') return { body: { items: links } };
      if (method === 'POST' && path === '/heatmaps/h1/shares') {
        bodies.push(body);
        links = [{ id: 's1', expires_at: made.expires_at, expired: false, created_at: made.created_at }];
        return { status: 201, body: made };
      }
      if (method === 'DELETE' && path === '/heatmaps/h1/shares/s1') {
        links = [];
        return { status: 204 };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/results/h1');
    await user.click(await screen.findByRole('button', { name: 'Partager' }));
    const panel = await screen.findByTestId('share-panel');
    await user.selectOptions(within(panel).getByLabelText('Durée de validité'), '7 jours');
    await user.click(within(panel).getByRole('button', { name: 'Créer un lien' }));
    expect(bodies).toEqual([{ expires_in_days: 7 }]);
    expect(await within(panel).findByLabelText('Lien de partage')).toHaveValue(`${window.location.origin}/shared/${'a'.repeat(32)}`);
    expect(within(panel).getByRole('status')).toHaveTextContent('Copiez ce lien maintenant : il ne sera plus affiché.');
    const listed = await within(panel).findByTestId('share');
    expect(listed).toHaveTextContent('valable jusqu');
    // Revoking asks first: cancelling keeps the link.
    await user.click(within(listed).getByRole('button', { name: 'Révoquer' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Révoquer ce lien ?' });
    await user.click(within(ask).getByRole('button', { name: 'Annuler' }));
    expect(within(panel).getByTestId('share')).toBeInTheDocument();
    await user.click(within(listed).getByRole('button', { name: 'Révoquer' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Révoquer' }));
    await waitFor(() => expect(within(panel).queryByTestId('share')).not.toBeInTheDocument());
    expect(within(panel).queryByLabelText('Lien de partage')).not.toBeInTheDocument();
  });

  it('opens a shared heatmap without an account, read-only', async () => {
    resetAuthMock(null);
    const zone = { id: 'z', item_id: 'a', name: 'Logo', shape: 'rect', points: [], rect: { x: 0, y: 0, width: 0.5, height: 0.5 }, attention: { share: 0.4, area: 0.25, relative: 1.6, seen_rank: 1, seen_early: true }, created_at: '', updated_at: '' };
    const calls: string[] = [];
    mockApi(({ method, path }) => {
      calls.push(`${method} ${path}`);
      return path === `/shared/${'b'.repeat(32)}`
        ? {
            body: {
              heatmap: heatmap([{ ...item('a', 'done'), aois: [zone] }]),
              benchmarks: {
                reference: { name: 'OSIE', images: 700, licence: 'MIT', citation: '…', method: '…', model: 'v2' },
                items: [
                  {
                    item_id: 'a',
                    kind: 'image',
                    metrics: { score: { value: 72.4, library: null, reference: { percentile: 81.6, count: 700 } } },
                    aois: [{ aoi_id: 'z', share: 0.4, library: null, reference: { percentile: 77, count: 4200 } }],
                  },
                ],
              },
              expires_at: '2026-12-23T10:00:00.000Z',
              branding: null,
            },
          }
        : undefined;
    });
    renderApp(`/shared/${'b'.repeat(32)}`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Campagne été' })).toBeInTheDocument();
    expect(screen.getByTestId('shared-notice')).toHaveTextContent('partagés en lecture seule');
    expect(screen.queryByTestId('shared-brand')).not.toBeInTheDocument();
    // The PDF report and each image download without an account.
    expect(screen.getByRole('link', { name: 'Télécharger le rapport PDF' })).toHaveAttribute(
      'href',
      `/api/v1/shared/${'b'.repeat(32)}/report.pdf?lang=fr`,
    );
    expect(screen.getByTestId('shared-image-download')).toHaveAttribute('download');
    expect(screen.getByTestId('score-value')).toHaveTextContent('72');
    expect(screen.getByTestId('aoi')).toHaveTextContent('Logo');
    // Nothing to change: no drawing hint, no name field, no retry, no sign-in screen.
    expect(screen.queryByTestId('aoi-name')).not.toBeInTheDocument();
    expect(screen.queryByTestId('attention-stage')).not.toHaveClass('hm-stage--draw');
    expect(screen.queryByTestId('copy-aois')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Se connecter' })).not.toBeInTheDocument();
    // The reference standings came with the heatmap; the owner's library is not shown.
    const bench = screen.getByTestId('benchmarks');
    expect(within(bench).getByTestId('benchmark-score')).toHaveTextContent(/Au-dessus de 82\s%/);
    expect(within(bench).queryByRole('columnheader', { name: 'Vos images' })).not.toBeInTheDocument();
    expect(within(bench).queryByTestId('benchmark-library')).not.toBeInTheDocument();
    expect(calls).toEqual([`GET /shared/${'b'.repeat(32)}`]);
  });

  it("shows the agency's branding on a share page", async () => {
    resetAuthMock(null);
    mockApi(({ path }) =>
      path === `/shared/${'d'.repeat(32)}`
        ? {
            body: {
              heatmap: heatmap([item('a', 'done')]),
              benchmarks: { reference: { name: 'OSIE', images: 700, licence: 'MIT', citation: '…', method: '…', model: 'v2' }, items: [] },
              expires_at: '2026-12-23T10:00:00.000Z',
              branding: { agency_name: 'Agence Lumière', accent_color: '#c2410c', logo_url: '/api/v1/files/logo/preview?share=s' },
            },
          }
        : undefined,
    );
    renderApp(`/shared/${'d'.repeat(32)}`);
    const brand = await screen.findByTestId('shared-brand');
    expect(within(brand).getByRole('img', { name: 'Agence Lumière' })).toHaveAttribute('src', '/api/v1/files/logo/preview?share=s');
    expect(brand).toHaveTextContent('Agence Lumière');
    expect(screen.getByTestId('shared-notice')).toHaveTextContent('partagés en lecture seule par Agence Lumière');
    expect(brand.closest('section')).toHaveStyle({ '--share-accent': '#c2410c' });
  });

  it('says when a share link has expired', async () => {
    resetAuthMock(null);
    mockApi(() => ({ status: 410, body: { code: 'share_expired', message: 'expired', details: {} } }));
    renderApp(`/shared/${'c'.repeat(32)}`);
    expect(await screen.findByTestId('shared-error')).toHaveTextContent('Ce lien de partage a expiré.');
  });
});

describe('media heatmap', () => {
  it('offers to generate a heatmap named after the image, then shows its progress in place', async () => {
    const created: unknown[] = [];
    const media = fakeMedia('m1', { original_name: 'affiche-ete.final.png' });
    let latest: unknown = { media, heatmap: null, item: null };
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/media/m1/heatmap') return { body: latest };
      if (method === 'POST' && path === '/heatmaps') {
        created.push(body);
        const made = heatmap([{ ...item('x', 'queued'), source: media }], { id: 'h9', name: 'affiche-ete.final', status: 'queued' });
        latest = { media, heatmap: { id: made.id, name: made.name, created_at: made.created_at }, item: made.items[0] };
        return { status: 202, body: made };
      }
      return undefined;
    });
    const { user } = renderApp('/heatmap/m1');
    expect(await screen.findByText("Cette image n'a pas encore de heatmap.")).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Générer la heatmap' }));
    expect(await screen.findByText('En attente de traitement…')).toBeInTheDocument();
    expect(created).toEqual([{ name: 'affiche-ete.final', media_ids: ['m1'] }]);
    expect(screen.getByRole('link', { name: 'Voir la heatmap « affiche-ete.final »' })).toHaveAttribute('href', '/heatmap/results/h9');
  });

  it('shows the latest result with the same view as the results page', async () => {
    mockApi(({ path }) =>
      path === '/media/m-a/heatmap'
        ? { body: { media: fakeMedia('m-a'), heatmap: { id: 'h1', name: 'Campagne été', created_at: '2026-11-21T10:00:00.000Z' }, item: item('a', 'done') } }
        : undefined,
    );
    renderApp('/heatmap/m-a');
    expect(await screen.findByTestId('score-value')).toHaveTextContent('72');
    expect(screen.getByRole('heading', { level: 1, name: 'Heatmap du média' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Voir la heatmap « Campagne été »' })).toHaveAttribute('href', '/heatmap/results/h1');
  });
});

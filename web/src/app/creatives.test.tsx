import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type * as api from '@/lib/api';
import { ApiError, uploadMedia } from '@/lib/api';
import { calls, fakeMedia, mockApi, sentHeader } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
vi.mock('@/lib/api', async (importOriginal) => ({
  ...(await importOriginal<typeof api>()),
  uploadMedia: vi.fn(),
}));

const upload = vi.mocked(uploadMedia);

function creative(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name,
    brand: null,
    campaign: null,
    notes: null,
    media: fakeMedia(`m-${id}`),
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    ...extra,
  };
}

beforeEach(() => {
  resetAuthMock(fakeSession());
  upload.mockReset();
});

describe('creatives page', () => {
  it('shows the empty state', async () => {
    renderApp('/creatives');
    expect(await screen.findByText("Vous n'avez pas encore de créations.")).toBeInTheDocument();
    expect(screen.getByTestId('new-creative')).toBeEnabled();
  });

  it('lists creatives as thumbnails with name and size, sending the bearer token', async () => {
    const fetchMock = mockApi(({ path }) =>
      path === '/creatives' ? { body: { items: [creative('c1', 'Affiche été')], next_cursor: null } } : undefined,
    );
    renderApp('/creatives');
    const grid = await screen.findByRole('list', { name: 'Vos créations' });
    const card = within(grid).getByRole('listitem');
    expect(within(card).getByRole('link', { name: 'Affiche été' })).toHaveAttribute('href', '/creatives/c1');
    expect(card.querySelector('img')).toHaveAttribute('src', '/api/v1/files/m-c1/thumbnail?exp=1&sig=a');
    expect(card).toHaveTextContent('1920 × 1080');
    expect(sentHeader(fetchMock, 0, 'Authorization')).toBe('Bearer access');
  });

  it('searches, filters by brand and campaign and sorts, all kept in the address; shows brand and campaign on cards', async () => {
    const asked: string[] = [];
    mockApi(({ path, query }) => {
      if (path === '/creatives/facets') {
        return { body: { brands: [{ name: 'Évian', count: 2 }], campaigns: [{ name: 'Été 2026', count: 1 }] } };
      }
      if (path !== '/creatives') return undefined;
      asked.push(query.toString());
      if (query.get('campaign')) return { body: { items: [], next_cursor: null } };
      return {
        body: {
          items: [creative('c1', 'Affiche très longue pour le métro parisien', { brand: 'Évian', campaign: 'Été 2026' })],
          next_cursor: null,
        },
      };
    });
    const { user } = renderApp('/creatives');
    const card = await screen.findByTestId('creative-card');
    expect(within(card).getByTestId('creative-tags')).toHaveTextContent('Évian · Été 2026');
    expect(within(card).getByTitle('Affiche très longue pour le métro parisien')).toBeInTheDocument();
    // Filtering stays on the page: the scroll is kept (no jump to the top).
    const scrollTo = vi.spyOn(window, 'scrollTo');

    await user.selectOptions(screen.getByLabelText('Marque'), 'Évian');
    await waitFor(() => expect(asked.at(-1)).toBe('limit=60&brand=%C3%89vian'));
    await user.selectOptions(screen.getByLabelText('Trier par'), 'name');
    await waitFor(() => expect(asked.at(-1)).toBe('limit=60&brand=%C3%89vian&sort=name'));
    await user.type(screen.getByLabelText('Rechercher'), 'métro');
    await waitFor(() => expect(asked.at(-1)).toBe('limit=60&q=m%C3%A9tro&brand=%C3%89vian&sort=name'));
    expect(screen.getByRole('option', { name: 'Évian (2)' })).toBeInTheDocument();

    // Nothing matches: said so, with a way back.
    await user.selectOptions(screen.getByLabelText('Campagne'), 'Été 2026');
    expect(await screen.findByText('Aucune création ne correspond à ces filtres.')).toBeInTheDocument();
    await user.click(within(screen.getByTestId('creatives-no-match')).getByRole('button', { name: 'Effacer les filtres' }));
    await waitFor(() => expect(asked.at(-1)).toBe('limit=60&sort=name'));
    expect(screen.getByLabelText('Rechercher')).toHaveValue('');
    expect(scrollTo).not.toHaveBeenCalled();
  });

  it('uploads several files, creates a creative for each success and shows a failure next to its file', async () => {
    const created: unknown[] = [];
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/creatives') return { body: { items: [], next_cursor: null } };
      if (method === 'POST' && path === '/creatives') {
        created.push(body);
        return { status: 201, body: creative('c9', 'good') };
      }
      return undefined;
    });
    let finish: () => void = () => {};
    upload.mockImplementation((file, options) => {
      if (file.name === 'x.png') return Promise.reject(new ApiError(415, 'unsupported_media_type', 'nope'));
      options?.onProgress?.(50, 100);
      return new Promise((resolve) => (finish = () => resolve(fakeMedia('m-good') as never)));
    });

    const { user } = renderApp('/creatives');
    await user.click(await screen.findByTestId('new-creative'));
    expect(screen.getByTestId('new-creative')).toHaveAttribute('aria-expanded', 'true');
    const input = screen.getByLabelText('Choisir des fichiers');
    await user.upload(input, [
      new File(['png'], 'good.png', { type: 'image/png' }),
      new File(['text'], 'x.png', { type: 'image/png' }),
    ]);

    const list = screen.getByRole('list', { name: 'Fichiers envoyés' });
    const failed = within(list).getByText('x.png').closest('li')!;
    expect(await within(failed).findByRole('alert')).toHaveTextContent("Ce fichier n'est pas une image JPEG, PNG ou WebP.");
    const good = within(list).getByText('good.png').closest('li')!;
    expect(within(good).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '50');

    act(() => finish());
    await waitFor(() => expect(good).toHaveAttribute('data-status', 'done'));
    expect(created).toEqual([{ media_id: 'm-good' }]);
  });

  it('states the pixel limit of a refused image, and warns about a stored image too small for a sharp display', async () => {
    mockApi(({ method, path, body }) => {
      if (method === 'GET' && path === '/creatives') return { body: { items: [], next_cursor: null } };
      if (method === 'POST' && path === '/creatives') {
        const id = (body as { media_id: string }).media_id;
        return { status: 201, body: creative(id, id) };
      }
      return undefined;
    });
    upload.mockImplementation((file) => {
      if (file.name === 'geante.png') {
        return Promise.reject(new ApiError(422, 'image_too_large', 'x', { width: 12000, height: 9000, max_pixels: 100_000_000, max_side: 30_000 }));
      }
      const [width, height] = file.name === 'logo.png' ? [40, 40] : [1920, 1080];
      return Promise.resolve(fakeMedia(`m-${file.name}`, { width, height }) as never);
    });

    const { user } = renderApp('/creatives');
    await user.click(await screen.findByTestId('new-creative'));
    await user.upload(screen.getByLabelText('Choisir des fichiers'), [
      new File(['png'], 'geante.png', { type: 'image/png' }),
      new File(['png'], 'logo.png', { type: 'image/png' }),
      new File(['png'], 'affiche.png', { type: 'image/png' }),
    ]);
    const list = screen.getByRole('list', { name: 'Fichiers envoyés' });
    const line = (name: string) => within(list).getByText(name).closest('li')!;
    const text = (element: HTMLElement) => element.textContent?.replace(/\s/g, ' ');

    expect(text(await within(line('geante.png')).findByRole('alert'))).toBe(
      'Cette image a trop de pixels : 12 000 × 9 000 px (108 mégapixels) ; la limite est de 100 mégapixels. Réduisez ses dimensions puis réessayez.',
    );
    await waitFor(() => expect(line('logo.png')).toHaveAttribute('data-status', 'done'));
    expect(text(within(line('logo.png')).getByTestId('upload-warning'))).toBe(
      "Image de 40 × 40 px : trop petite pour un affichage net ; 1 080 px au moins sur le petit côté sont conseillés (le petit côté d'un écran Full HD).",
    );
    await waitFor(() => expect(line('affiche.png')).toHaveAttribute('data-status', 'done'));
    expect(within(line('affiche.png')).queryByTestId('upload-warning')).not.toBeInTheDocument();
  });

  it('warns on a creative\'s page when its image is too small for a sharp display', async () => {
    mockApi(({ path }) => (path === '/creatives/c1' ? { body: creative('c1', 'Logo', { media: fakeMedia('m-c1', { width: 40, height: 40 }) }) } : undefined));
    renderApp('/creatives/c1');
    const warning = await screen.findByTestId('low-resolution');
    expect(warning).toHaveAttribute('role', 'status');
    expect(warning.textContent?.replace(/\s/g, ' ')).toBe(
      "Image de 40 × 40 px : trop petite pour un affichage net ; 1 080 px au moins sur le petit côté sont conseillés (le petit côté d'un écran Full HD).",
    );
  });

  it('renames with Enter, cancels with Escape, and deletes after a confirmation that counts simulations', async () => {
    let current = creative('c1', 'Affiche', { simulation_count: 2 });
    const patches: unknown[] = [];
    const fetchMock = mockApi(({ method, path, body }) => {
      if (path === '/creatives/c1' && method === 'GET') return { body: current };
      if (path === '/creatives/c1' && method === 'PATCH') {
        patches.push(body);
        current = { ...current, ...(body as object), updated_at: '2026-11-21T01:00:00.000Z' };
        return { body: current };
      }
      if (path === '/creatives/c1' && method === 'DELETE') return { status: 204 };
      if (path === '/creatives') return { body: { items: [], next_cursor: null } };
      return undefined;
    });
    const { user, router } = renderApp('/creatives/c1');
    expect(await screen.findByTestId('creative-name')).toHaveTextContent('Affiche');
    expect(screen.queryByTestId('low-resolution')).not.toBeInTheDocument(); // 1920 × 1080
    expect(screen.getByRole('img', { name: 'Image de la création « Affiche »' })).toHaveAttribute(
      'src',
      '/api/v1/files/m-c1/preview?exp=1&sig=a',
    );

    await user.click(screen.getByRole('button', { name: 'Renommer' }));
    await user.clear(screen.getByTestId('rename-input'));
    await user.type(screen.getByTestId('rename-input'), 'Brouillon{Escape}');
    expect(screen.getByTestId('creative-name')).toHaveTextContent('Affiche');
    expect(patches).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Renommer' }));
    await user.clear(screen.getByTestId('rename-input'));
    await user.type(screen.getByTestId('rename-input'), 'Affiche automne{Enter}');
    await waitFor(() => expect(screen.getByTestId('creative-name')).toHaveTextContent('Affiche automne'));
    expect(patches).toEqual([{ name: 'Affiche automne' }]);
    const toasts = screen.getByRole('status', { name: 'Notifications' });
    expect(toasts).toHaveTextContent('Création « Affiche automne » enregistrée.');

    await user.click(screen.getByTestId('delete-creative'));
    const dialog = screen.getByRole('alertdialog', { name: 'Supprimer cette création ?' });
    expect(dialog).toHaveTextContent('2 simulations faites avec cette création seront aussi supprimées.');
    expect(within(dialog).getByRole('button', { name: 'Annuler' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Supprimer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(calls(fetchMock).some((call) => call.startsWith('DELETE '))).toBe(true);
    expect(toasts).toHaveTextContent('Création « Affiche automne » supprimée.');
  });

  it('says when no simulation goes with a deletion, in English too', async () => {
    const { i18n } = await import('@/lib/i18n');
    await i18n.changeLanguage('en');
    mockApi(({ path }) => (path === '/creatives/c1' ? { body: creative('c1', 'Poster', { simulation_count: 0 }) } : undefined));
    const { user } = renderApp('/creatives/c1');
    await user.click(await screen.findByRole('button', { name: 'Delete creative' }));
    expect(screen.getByRole('alertdialog')).toHaveTextContent('No simulation uses this creative.');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });
});

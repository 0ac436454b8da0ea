import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { useWorkspaceStore } from '@/lib/workspace';
import { mockApi, type ApiCall, type ApiHandler } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

/** The signed-in user of `fakeSession()` (ada@example.com). */
const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';

const personal = { id: ME, name: '', role: 'owner', personal: true };
const agency = { id: 'w-agency', name: 'Agence Nord', role: 'viewer', personal: false };
const bob = { user_id: BOB, email: 'bob@example.com' };
const ada = { user_id: ME, email: 'ada@example.com' };

const now = new Date().toISOString();
function line(id: string, actor: typeof bob | null, action: string, subject_type: string, subject_id: string, subject_name: string | null, created_at = now) {
  return { id, actor, action, subject_type, subject_id, subject_name, created_at };
}

const FIRST = [
  line('a1', bob, 'deleted', 'creative', 'c9', "Soldes d'hiver"),
  line('a2', ada, 'commented', 'heatmap', 'h1', 'Campagne été'),
  line('a3', null, 'created', 'location', 'l1', 'Gare de Lyon'),
  line('a4', bob, 'changed', 'member', BOB, 'cleo@client.fr', '2026-11-20T12:00:00.000Z'),
];
const SECOND = [
  line('a5', bob, 'reviewed', 'simulation', 's1', 'Affiche — Gare', '2026-11-19T12:00:00.000Z'),
  line('a6', bob, 'invited', 'invitation', 'i1', 'eve@example.com', '2026-11-19T11:00:00.000Z'),
];

/** "Agence Nord" and its activity in two pages (`cursor=p2`); every activity request is logged. */
function activityServer(asked: URLSearchParams[]): ApiHandler {
  return ({ method, path, query }: ApiCall) => {
    if (method !== 'GET') return undefined;
    if (path === '/workspaces') return { body: { items: [personal, agency] } };
    if (path === '/workspaces/w-agency/members') return { body: { items: [{ ...ada, role: 'viewer' }, { ...bob, role: 'owner' }] } };
    if (path === '/workspaces/w-agency/activity') {
      asked.push(query);
      if (query.get('cursor') === 'p2') return { body: { items: SECOND, next_cursor: null } };
      const items = FIRST.filter((item) => !query.get('action') || item.action === query.get('action'));
      return { body: { items, next_cursor: query.get('action') ? null : 'p2' } };
    }
    return undefined;
  };
}

/** The sentences on the page (French puts no-break spaces inside « »; read here as spaces). */
const sentences = () => screen.getAllByTestId('activity-sentence').map((sentence) => sentence.textContent?.replace(/\u00a0/g, ' '));

beforeEach(() => {
  resetAuthMock(fakeSession());
  useWorkspaceStore.getState().set('w-agency');
});

describe('the activity page', () => {
  it('tells each line in a sentence, grouped by day, with links to what still exists, and loads more', async () => {
    const asked: URLSearchParams[] = [];
    mockApi(activityServer(asked));
    const { user } = renderApp('/workspace/activity');
    expect(await screen.findByRole('heading', { level: 1, name: 'Activité' })).toBeInTheDocument();
    await screen.findAllByTestId('activity-item');
    expect(screen.getByText('Ce qui a été fait dans « Agence Nord », le plus récent en premier.')).toBeInTheDocument();
    expect(sentences()).toEqual([
      "bob@example.com a supprimé la création « Soldes d'hiver »",
      'ada@example.com (vous) a commenté la heatmap « Campagne été »',
      "Un compte supprimé a créé l'emplacement « Gare de Lyon »",
      'bob@example.com a changé le rôle de cleo@client.fr',
    ]);
    const days = screen.getAllByTestId('activity-day');
    expect(days.map((day) => within(day).getByRole('heading', { level: 2 }).textContent)).toEqual(["Aujourd'hui", 'vendredi 20 novembre 2026']);
    // A deleted creative has no page any more; the heatmap and the location have one.
    const items = screen.getAllByTestId('activity-item');
    expect(within(items[0]).queryByRole('link')).not.toBeInTheDocument();
    expect(within(items[1]).getByRole('link', { name: 'la heatmap «\u00a0Campagne été\u00a0»' })).toHaveAttribute('href', '/heatmap/results/h1');
    expect(within(items[2]).getByRole('link')).toHaveAttribute('href', '/locations/l1');
    expect(asked[0].get('limit')).toBe('50');
    expect(asked[0].get('cursor')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Charger plus' }));
    await waitFor(() => expect(screen.getAllByTestId('activity-item')).toHaveLength(6));
    expect(asked.at(-1)?.get('cursor')).toBe('p2');
    expect(sentences().slice(4)).toEqual([
      'bob@example.com a changé la validation de la simulation « Affiche — Gare »',
      'bob@example.com a invité eve@example.com',
    ]);
    expect(screen.getAllByTestId('activity-day').map((day) => within(day).getByRole('heading', { level: 2 }).textContent)).toEqual([
      "Aujourd'hui",
      'vendredi 20 novembre 2026',
      'jeudi 19 novembre 2026',
    ]);
    expect(within(screen.getAllByTestId('activity-item')[4]).getByRole('link')).toHaveAttribute('href', '/simulation/s1');
    expect(screen.queryByRole('button', { name: 'Charger plus' })).not.toBeInTheDocument();
  });

  it('keeps its filters in the address and asks the server with them', async () => {
    const asked: URLSearchParams[] = [];
    mockApi(activityServer(asked));
    const { user, router } = renderApp(`/workspace/activity?subject_type=heatmap&actor_id=${BOB}`);
    await screen.findByTestId('activity-filters');
    await waitFor(() => expect(screen.getByLabelText('Membre')).toHaveValue(BOB));
    expect(screen.getByLabelText('Élément')).toHaveValue('heatmap');
    expect(asked[0].get('subject_type')).toBe('heatmap');
    expect(asked[0].get('actor_id')).toBe(BOB);

    await user.selectOptions(screen.getByLabelText('Action'), 'deleted');
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('action')).toBe('deleted'));
    expect(new URLSearchParams(router.state.location.search).get('subject_type')).toBe('heatmap');
    await waitFor(() => expect(asked.at(-1)?.get('action')).toBe('deleted'));
    expect(asked.at(-1)?.get('actor_id')).toBe(BOB);

    await user.click(screen.getByRole('button', { name: 'Effacer les filtres' }));
    await waitFor(() => expect(router.state.location.search).toBe(''));
    expect(screen.getByLabelText('Action')).toHaveValue('');
    await waitFor(() => expect(asked.at(-1)?.get('subject_type')).toBeNull());
  });

  it('says when no line matches the filters', async () => {
    mockApi((call) => (call.path === '/workspaces/w-agency/activity' ? { body: { items: [], next_cursor: null } } : activityServer([])(call)));
    renderApp('/workspace/activity?action=exported');
    expect(await screen.findByTestId('activity-empty')).toHaveTextContent('Aucune activité ne correspond à ces filtres.');
  });

  it('is linked from the workspace menu and from the members page', async () => {
    mockApi(activityServer([]));
    const { user, router } = renderApp('/workspace');
    await user.click(await screen.findByTestId('activity-link'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/activity'));
    await user.click(screen.getByRole('link', { name: 'Membres et réglages' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace'));
    await user.click(screen.getByTestId('workspace-switcher'));
    await user.click(screen.getByTestId('workspace-activity-link'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/activity'));
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { useWorkspaceStore } from '@/lib/workspace';
import { fakeMedia, mockApi, type ApiCall, type ApiHandler } from '@/testing/api-mock';
import { fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

// ---------- Fixtures ----------

/** The signed-in user of `fakeSession()` (ada@example.com). */
const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const CLEO = '00000000-0000-4000-8000-000000000003';

type Role = 'owner' | 'editor' | 'viewer';
const personal = { id: ME, name: '', role: 'owner' as Role, personal: true };
const agency = (role: Role) => ({ id: 'w-agency', name: 'Agence Nord', role, personal: false });
const members = [
  { user_id: ME, email: 'ada@example.com', role: 'editor' },
  { user_id: BOB, email: 'bob@example.com', role: 'owner' },
  { user_id: CLEO, email: 'cleo@client.fr', role: 'viewer' },
];

const heatmap = {
  id: 'h1',
  name: 'Campagne été',
  status: 'queued',
  item_count: 1,
  done_count: 0,
  failed_count: 0,
  score: null,
  best_score: null,
  thumbnail: null,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  items: [
    {
      id: 'a',
      position: 0,
      status: 'queued',
      error: null,
      source: fakeMedia('m-a', { original_name: 'a.png' }),
      attempts: 0,
      started_at: null,
      finished_at: null,
      result: null,
      aois: [],
    },
  ],
};

function comment(id: string, author: string | null, body: string, mentions: string[] = []) {
  const email = members.find((m) => m.user_id === author)?.email ?? null;
  return { id, author: author ? { user_id: author, email } : null, body, mentions, created_at: '2026-11-21T12:00:00.000Z' };
}

/**
 * "Agence Nord" (the user's role there is `role`) with heatmap h1 and its review: comments and
 * approval kept as the server would, every change logged.
 */
function reviewServer(role: Role, log: ApiCall[] = [], extra: ApiHandler = () => undefined): ApiHandler {
  let comments = [
    comment('k1', BOB, 'Le logo est trop petit.\nOn peut le grossir ?'),
    comment('k2', ME, 'Oui, @bob@example.com je m’en occupe.', [BOB]),
    comment('k3', null, 'Un avis d’un ancien compte.'),
  ];
  let approval: { status: string; set_by: unknown; set_at: string | null } = { status: 'pending', set_by: null, set_at: null };
  return async (call) => {
    const { method, path, body } = call;
    if (method !== 'GET') log.push(call);
    const answered = await extra(call);
    if (answered) return answered;
    if (method === 'GET' && path === '/workspaces') return { body: { items: [personal, agency(role)] } };
    if (method === 'GET' && path === '/workspaces/w-agency/members') return { body: { items: members } };
    if (method === 'GET' && path === '/heatmaps/h1') return { body: heatmap };
    if (method === 'GET' && path === '/heatmaps/h1/comments') return { body: { items: comments } };
    if (method === 'POST' && path === '/heatmaps/h1/comments') {
      const text = (body as { body: string }).body;
      const made = comment(`k${comments.length + 1}`, ME, text, text.includes('@cleo@client.fr') ? [CLEO] : []);
      comments = [...comments, made];
      return { status: 201, body: made };
    }
    const deleting = /^\/heatmaps\/h1\/comments\/(\w+)$/.exec(path);
    if (method === 'DELETE' && deleting) {
      comments = comments.filter((c) => c.id !== deleting[1]);
      return { status: 204 };
    }
    if (method === 'GET' && path === '/heatmaps/h1/approval') return { body: approval };
    if (method === 'PUT' && path === '/heatmaps/h1/approval') {
      approval = { status: (body as { status: string }).status, set_by: { user_id: ME, email: 'ada@example.com' }, set_at: '2026-11-22T12:00:00.000Z' };
      return { body: approval };
    }
    return undefined;
  };
}

beforeEach(() => {
  resetAuthMock(fakeSession());
  useWorkspaceStore.getState().set('w-agency');
});

// ---------- The panel ----------

describe('comments and approval on a heatmap', () => {
  it('shows the conversation with its authors, line breaks and highlighted mentions', async () => {
    mockApi(reviewServer('editor'));
    renderApp('/heatmap/results/h1');
    const panel = await screen.findByTestId('review-panel');
    expect(within(panel).getByRole('heading', { level: 2, name: 'Commentaires et validation' })).toBeInTheDocument();
    const items = await within(panel).findAllByTestId('comment');
    expect(items.map((item) => within(item).getByTestId('comment-author').textContent)).toEqual([
      'bob@example.com',
      'ada@example.com (vous)',
      'Un compte supprimé',
    ]);
    expect(within(items[0]).getByTestId('comment-body').textContent).toBe('Le logo est trop petit.\nOn peut le grossir ?');
    expect(within(items[1]).getAllByTestId('mention').map((mark) => mark.textContent)).toEqual(['@bob@example.com']);
    expect(within(items[0]).queryByTestId('mention')).not.toBeInTheDocument();
    expect(within(panel).getByTestId('approval-by')).toHaveTextContent("Personne ne s'est encore prononcé.");
    expect(within(panel).getByTestId('approval-pending')).toHaveAttribute('aria-pressed', 'true');
  });

  it('posts a comment with Ctrl+Enter, the member picked from the @ helper', async () => {
    const log: ApiCall[] = [];
    mockApi(reviewServer('viewer', log));
    const { user } = renderApp('/heatmap/results/h1');
    const input = await screen.findByTestId('comment-input');
    expect(screen.getByText(/@adresse pour mentionner un membre/)).toBeInTheDocument();

    await user.type(input, 'Validé pour nous. @cl');
    // The members' addresses (not the user's own) that match what follows the @.
    const options = await screen.findAllByTestId('mention-option');
    expect(options.map((option) => option.textContent)).toEqual(['@cleo@client.fr']);
    expect(input).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{Enter}');
    expect(input).toHaveValue('Validé pour nous. @cleo@client.fr ');
    expect(screen.queryByTestId('mention-option')).not.toBeInTheDocument();
    await user.type(input, 'merci !');
    await user.keyboard('{Control>}{Enter}{/Control}');

    await waitFor(() => expect(screen.getAllByTestId('comment')).toHaveLength(4));
    expect(log.map((call) => [call.method, call.path, call.body])).toEqual([
      ['POST', '/heatmaps/h1/comments', { body: 'Validé pour nous. @cleo@client.fr merci !' }],
    ]);
    const added = screen.getAllByTestId('comment')[3];
    expect(within(added).getByTestId('mention')).toHaveTextContent('@cleo@client.fr');
    expect(input).toHaveValue('');
  });

  it('says why a comment is refused, and keeps the text', async () => {
    mockApi(
      reviewServer('editor', [], ({ method, path }) =>
        method === 'POST' && path === '/heatmaps/h1/comments'
          ? { status: 422, body: { code: 'validation_failed', message: 'x', details: { fields: { body: 'too_long' } } } }
          : undefined,
      ),
    );
    const { user } = renderApp('/heatmap/results/h1');
    const input = await screen.findByTestId('comment-input');
    await user.type(input, 'Trop long');
    await user.click(screen.getByRole('button', { name: 'Envoyer' }));
    expect(await within(screen.getByTestId('comment-form')).findByRole('alert')).toHaveTextContent('Ce texte est trop long.');
    expect(input).toHaveValue('Trop long');
  });

  it('a member deletes their own comments only, after confirming', async () => {
    const log: ApiCall[] = [];
    mockApi(reviewServer('editor', log));
    const { user } = renderApp('/heatmap/results/h1');
    const items = await screen.findAllByTestId('comment');
    expect(items.map((item) => within(item).queryByTestId('delete-comment') !== null)).toEqual([false, true, false]);

    await user.click(within(items[1]).getByRole('button', { name: 'Supprimer le commentaire de ada@example.com (vous)' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Supprimer ce commentaire ?' });
    expect(dialog).toHaveTextContent('Oui, @bob@example.com je m’en occupe.');
    await user.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    expect(log).toEqual([]);

    await user.click(within(items[1]).getByTestId('delete-comment'));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Supprimer' }));
    await waitFor(() => expect(screen.getAllByTestId('comment')).toHaveLength(2));
    expect(log.map((call) => `${call.method} ${call.path}`)).toEqual(['DELETE /heatmaps/h1/comments/k2']);
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('an owner may delete every comment; a refusal is said in the dialog', async () => {
    mockApi(
      reviewServer('owner', [], ({ method, path }) =>
        method === 'DELETE' && path === '/heatmaps/h1/comments/k1'
          ? { status: 403, body: { code: 'forbidden_role', message: 'x', details: {} } }
          : undefined,
      ),
    );
    const { user } = renderApp('/heatmap/results/h1');
    const items = await screen.findAllByTestId('comment');
    expect(items.map((item) => within(item).queryByTestId('delete-comment') !== null)).toEqual([true, true, true]);
    await user.click(within(items[0]).getByTestId('delete-comment'));
    const dialog = screen.getByRole('alertdialog');
    await user.click(within(dialog).getByRole('button', { name: 'Supprimer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Votre rôle dans cet espace ne permet pas cette action.');
    expect(screen.getAllByTestId('comment')).toHaveLength(3);
  });

  it('a viewer approves: the status and who set it, when', async () => {
    const log: ApiCall[] = [];
    mockApi(reviewServer('viewer', log));
    const { user } = renderApp('/heatmap/results/h1');
    const approve = await screen.findByRole('button', { name: 'Validé' });
    expect(screen.getByTestId('read-only-notice')).toBeInTheDocument();
    await user.click(approve);
    await waitFor(() => expect(screen.getByTestId('approval-by')).toHaveTextContent(/^Validé par ada@example\.com \(vous\) le 22 nov\. 2026/));
    expect(approve).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('approval-pending')).toHaveAttribute('aria-pressed', 'false');
    expect(screen.getByTestId('review-approval')).toHaveAttribute('data-status', 'approved');
    expect(log.map((call) => [call.method, call.path, call.body])).toEqual([['PUT', '/heatmaps/h1/approval', { status: 'approved' }]]);

    await user.click(screen.getByRole('button', { name: 'Modifications demandées' }));
    await waitFor(() => expect(screen.getByTestId('approval-by')).toHaveTextContent(/^Modifications demandées par ada@example\.com/));
  });
});

describe('comments and approval on a simulation', () => {
  const simulation = (status: string) => ({
    id: 's1',
    name: 'Affiche été — Gare de Lyon',
    creative_id: 'c1',
    location_id: 'l1',
    creative: { id: 'c1', name: 'Affiche été', media: fakeMedia('mc1') },
    location: { id: 'l1', name: 'Gare de Lyon' },
    status,
    error: null,
    output: status === 'done' ? fakeMedia('out1', { kind: 'render', mime: 'image/jpeg' }) : null,
    downloads: null,
    attention: null,
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: '2026-11-21T10:00:00.000Z',
  });

  it.each([
    ['done', true],
    ['queued', false],
  ])('a viewer of a %s simulation sees the panel: %s', async (status, shown) => {
    const handler = reviewServer('viewer');
    mockApi(async (call) => {
      const { method, path } = call;
      if (method === 'GET' && path === '/simulations/s1') return { body: simulation(status) };
      if (method === 'GET' && path === '/simulations') return { body: { items: [], next_cursor: null } };
      if (method === 'GET' && path === '/simulations/s1/comments') return { body: { items: [] } };
      if (method === 'GET' && path === '/simulations/s1/approval') return { body: { status: 'approved', set_by: { user_id: BOB, email: 'bob@example.com' }, set_at: '2026-11-22T12:00:00.000Z' } };
      return handler(call);
    });
    renderApp('/simulation/s1');
    await screen.findByTestId('simulation-read-only');
    if (shown) {
      expect(await screen.findByTestId('approval-by')).toHaveTextContent(/^Validé par bob@example\.com le 22 nov\. 2026/);
      expect(screen.getByText('Aucun commentaire pour l\'instant.')).toBeInTheDocument();
    } else {
      expect(screen.queryByTestId('review-panel')).not.toBeInTheDocument();
    }
  });
});

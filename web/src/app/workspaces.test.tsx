import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { useWorkspaceStore } from '@/lib/workspace';
import { calls, fakeMedia, mockApi, requestOf, type ApiCall, type ApiHandler } from '@/testing/api-mock';
import { authClient, fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { withEventStream } from '@/testing/event-stream';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

// ---------- Fixtures ----------

/** The signed-in user of `fakeSession()`: their personal workspace has their id. */
const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';

type Role = 'owner' | 'editor' | 'viewer';
const personal = { id: ME, name: '', role: 'owner' as Role, personal: true };
const agency = (role: Role = 'owner') => ({ id: 'w-agency', name: 'Agence Nord', role, personal: false });

function creative(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name,
    brand: 'Évian',
    campaign: null,
    notes: 'Pour le métro',
    media: fakeMedia(`m-${id}`),
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    ...extra,
  };
}

/** The workspace a request acts in, as the server reads it. */
const workspaceOf = (call: ApiCall) => call.headers.get('X-Workspace-Id') ?? ME;

/**
 * A server with the personal workspace and "Agence Nord" (the user's role there is `role()`):
 * each workspace has its own creatives; `extra` answers the rest.
 */
function server(role: () => Role = () => 'owner', extra: ApiHandler = () => undefined, workspaces?: () => unknown[]): ApiHandler {
  return async (call) => {
    const { method, path } = call;
    if (method === 'GET' && path === '/workspaces') return { body: { items: workspaces?.() ?? [personal, agency(role())] } };
    const answered = await extra(call);
    if (answered) return answered;
    const shared = workspaceOf(call) === 'w-agency';
    if (method === 'GET' && path === '/creatives') {
      return { body: { items: [shared ? creative('c2', 'Affiche agence') : creative('c1', 'Affiche perso')], next_cursor: null } };
    }
    if (method === 'GET' && path === '/creatives/c2' && shared) return { body: creative('c2', 'Affiche agence') };
    if (method === 'GET' && path === '/creatives/c1' && !shared) return { body: creative('c1', 'Affiche perso') };
    return undefined;
  };
}

/** The workspace the tab works in, as a tab that had chosen it (sessionStorage). */
function startIn(id: string | null) {
  useWorkspaceStore.getState().set(id);
}

const switcher = () => screen.getByTestId('workspace-switcher');

beforeEach(() => {
  resetAuthMock(fakeSession());
});

// ---------- The header ----------

describe('the workspace switcher', () => {
  it('shows the personal workspace, lists them all, and switching names the new one, forgets the cache and opens the section list', async () => {
    const fetchMock = mockApi(server());
    const { user, router } = renderApp('/creatives/c1');
    expect(await screen.findByTestId('creative-name')).toHaveTextContent('Affiche perso');
    expect(switcher()).toHaveTextContent('Mon espace');
    expect(calls(fetchMock)).toContain('GET /creatives/c1');

    await user.click(switcher());
    const menu = screen.getByTestId('workspace-menu');
    const options = within(menu).getAllByTestId('workspace-option');
    expect(options.map((option) => option.textContent)).toEqual(['Mon espace', 'Agence NordPropriétaire']);
    expect(options[0]).toHaveAttribute('aria-current', 'true');
    // The personal workspace has no members page.
    expect(within(menu).queryByTestId('workspace-settings-link')).not.toBeInTheDocument();

    await user.click(options[1]);
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    const grid = await screen.findByTestId('creatives-grid');
    expect(within(grid).getByText('Affiche agence')).toBeInTheDocument();
    expect(within(grid).queryByText('Affiche perso')).not.toBeInTheDocument();
    expect(switcher()).toHaveTextContent('Agence Nord');
    expect(within(switcher()).getByTestId('role-badge')).toHaveTextContent('Propriétaire');
    expect(window.sessionStorage.getItem('regard-workspace')).toContain('w-agency');

    // Back to the personal workspace: no header any more.
    await user.click(switcher());
    await user.click(within(screen.getByTestId('workspace-menu')).getAllByTestId('workspace-option')[0]);
    expect(await screen.findByText('Affiche perso')).toBeInTheDocument();
    const last = fetchMock.mock.calls.at(-1)!;
    expect(requestOf(...last).headers.get('X-Workspace-Id')).toBeNull();
  });

  it('asks before leaving a form with unsaved changes, and never asks the new workspace for the page left', async () => {
    const fetchMock = mockApi(server());
    const { user, router } = renderApp('/creatives/c1');
    const brand = await screen.findByLabelText('Marque');
    await user.type(brand, ' Sud');
    await user.click(switcher());
    await user.click(within(screen.getByTestId('workspace-menu')).getAllByTestId('workspace-option')[1]);
    const dialog = screen.getByRole('alertdialog', { name: 'Quitter sans enregistrer ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    expect(router.state.location.pathname).toBe('/creatives/c1');
    expect(brand).toHaveValue('Évian Sud');
    expect(useWorkspaceStore.getState().id).toBeNull();

    await user.click(switcher());
    await user.click(within(screen.getByTestId('workspace-menu')).getAllByTestId('workspace-option')[1]);
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Quitter sans enregistrer' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(await screen.findByText('Affiche agence')).toBeInTheDocument();
    const asked = fetchMock.mock.calls.map((call) => requestOf(...call)).filter((request) => request.url.endsWith('/creatives/c1'));
    expect(asked.map((request) => request.headers.get('X-Workspace-Id'))).toEqual([null]);
  });

  it('creates a workspace from the menu and opens its members page in it', async () => {
    let list = [personal];
    const created: unknown[] = [];
    mockApi(
      server(
        () => 'owner',
        ({ method, path, body }) => {
          if (method === 'POST' && path === '/workspaces') {
            created.push(body);
            list = [personal, { id: 'w-new', name: 'Campagne été', role: 'owner', personal: false }];
            return { status: 201, body: list[1] };
          }
          if (method === 'GET' && path === '/workspaces/w-new/members') return { body: { items: [{ user_id: ME, email: 'ada@example.com', role: 'owner' }] } };
          if (method === 'GET' && path === '/workspaces/w-new/invitations') return { body: { items: [] } };
          return undefined;
        },
        () => list,
      ),
    );
    const { user, router } = renderApp('/creatives');
    await screen.findByTestId('creatives-grid');
    await user.click(switcher());
    await user.click(screen.getByTestId('create-workspace'));
    const dialog = screen.getByRole('dialog', { name: 'Créer un espace' });
    await user.type(within(dialog).getByLabelText("Nom de l'espace"), '  Campagne été ');
    await user.click(within(dialog).getByRole('button', { name: "Créer l'espace" }));

    expect(created).toEqual([{ name: 'Campagne été' }]);
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace'));
    expect(await screen.findByText('Espace « Campagne été » créé.')).toBeInTheDocument();
    expect(switcher()).toHaveTextContent('Campagne été');
    expect(await screen.findByTestId('member-row')).toHaveTextContent('ada@example.com');
  });

  it('falls back to the personal workspace, with a toast, when the current one is gone', async () => {
    startIn('w-gone');
    const fetchMock = mockApi(server());
    renderApp('/creatives');
    expect(await screen.findByText("Cet espace n'est plus accessible : vous êtes de retour dans votre espace personnel.")).toBeInTheDocument();
    expect(await screen.findByText('Affiche perso')).toBeInTheDocument();
    expect(switcher()).toHaveTextContent('Mon espace');
    expect(useWorkspaceStore.getState().id).toBeNull();
    const last = fetchMock.mock.calls.at(-1)!;
    expect(requestOf(...last).headers.get('X-Workspace-Id')).toBeNull();
  });

  it('opens a link with ?ws= in that workspace, and a shared item page carries it', async () => {
    const fetchMock = mockApi(server());
    const { router } = renderApp('/creatives/c2?ws=w-agency');
    expect(await screen.findByTestId('creative-name')).toHaveTextContent('Affiche agence');
    // The item was asked for in the workspace of the link, never in the personal one.
    const asked = fetchMock.mock.calls.map(([input, init]) => requestOf(input, init)).filter((request) => request.url.endsWith('/creatives/c2'));
    expect(asked.map((request) => request.headers.get('X-Workspace-Id'))).toEqual(['w-agency']);
    expect(useWorkspaceStore.getState().id).toBe('w-agency');

    // An item link inside the app gets the parameter added, for copying.
    await act(() => router.navigate('/creatives/c2'));
    await waitFor(() => expect(router.state.location.search).toBe('?ws=w-agency'));
  });

  it('reads the role again when the stream says the members changed: a new viewer loses the editing controls', async () => {
    startIn('w-agency');
    let role: Role = 'editor';
    const live = withEventStream(server(() => role));
    renderApp('/creatives');
    expect(await screen.findByTestId('new-creative')).toBeInTheDocument();
    expect(within(switcher()).getByTestId('role-badge')).toHaveTextContent('Éditeur');
    // A shared workspace holds the stream open on every page.
    await waitFor(() => expect(live.connected()).toBe(true));

    role = 'viewer';
    act(() => live.send('members', { workspace_id: 'w-agency' }));
    expect(await screen.findByTestId('read-only-notice')).toHaveTextContent('Lecture seule');
    expect(screen.queryByTestId('new-creative')).not.toBeInTheDocument();
    expect(within(switcher()).getByTestId('role-badge')).toHaveTextContent('Lecteur');
  });
});

// ---------- The members page ----------

function membersServer(role: Role, log: ApiCall[] = []) {
  let members = [
    { user_id: ME, email: 'ada@example.com', role },
    { user_id: BOB, email: 'bob@example.com', role: 'editor' as Role },
  ];
  let invitations = [
    { id: 'i1', email: 'chloe@example.com', role: 'viewer' as Role, expires_at: '2099-01-10T10:00:00.000Z' },
    { id: 'i2', email: 'dan@example.com', role: 'editor' as Role, expires_at: '2020-01-01T10:00:00.000Z' },
  ];
  let name = 'Agence Nord';
  let list = () => [personal, { ...agency(role), name }];
  const handler: ApiHandler = (call) => {
    const { method, path, body } = call;
    if (method !== 'GET') log.push(call);
    if (method === 'GET' && path === '/workspaces') return { body: { items: list() } };
    if (method === 'GET' && path === '/workspaces/w-agency/members') return { body: { items: members } };
    if (method === 'GET' && path === '/workspaces/w-agency/invitations') return { body: { items: invitations } };
    if (method === 'PATCH' && path === '/workspaces/w-agency') {
      name = (body as { name: string }).name;
      return { body: { ...agency(role), name } };
    }
    if (method === 'PATCH' && path === `/workspaces/w-agency/members/${BOB}`) {
      members = members.map((m) => (m.user_id === BOB ? { ...m, role: (body as { role: Role }).role } : m));
      return { body: members[1] };
    }
    if (method === 'DELETE' && path === `/workspaces/w-agency/members/${BOB}`) {
      members = members.filter((m) => m.user_id !== BOB);
      return { status: 204 };
    }
    if (method === 'DELETE' && path === `/workspaces/w-agency/members/${ME}`) {
      list = () => [personal];
      return { status: 204 };
    }
    if (method === 'POST' && path === '/workspaces/w-agency/invitations') {
      const { email, role: invited } = body as { email: string; role: Role };
      if (email === 'bob@example.com') return { status: 409, body: { code: 'already_member', message: 'x', details: {} } };
      const made = { id: 'i3', email, role: invited, expires_at: '2099-02-01T10:00:00.000Z' };
      invitations = [made, ...invitations];
      return { status: 201, body: made };
    }
    if (method === 'POST' && path === '/workspaces/w-agency/invitations/i2/resend') {
      invitations = invitations.map((i) => (i.id === 'i2' ? { ...i, expires_at: '2099-03-01T10:00:00.000Z' } : i));
      return { status: 200, body: invitations[1] };
    }
    if (method === 'DELETE' && path === '/workspaces/w-agency/invitations/i1') {
      invitations = invitations.filter((i) => i.id !== 'i1');
      return { status: 204 };
    }
    if (method === 'DELETE' && path === '/workspaces/w-agency') {
      list = () => [personal];
      return { status: 204 };
    }
    if (method === 'GET' && path === '/creatives') return { body: { items: [], next_cursor: null } };
    return undefined;
  };
  return handler;
}

describe('the members page', () => {
  it("an owner changes a role, removes a member after confirming, and manages invitations with their expiry", async () => {
    startIn('w-agency');
    const log: ApiCall[] = [];
    mockApi(membersServer('owner', log));
    const { user } = renderApp('/workspace');
    expect(await screen.findByRole('heading', { level: 1, name: 'Espace de travail' })).toBeInTheDocument();

    const members = await screen.findAllByTestId('member-row');
    expect(members.map((row) => row.dataset.email)).toEqual(['ada@example.com', 'bob@example.com']);
    expect(members[0]).toHaveTextContent('Vous');
    expect(within(members[0]).queryByTestId('remove-member')).not.toBeInTheDocument();

    await user.selectOptions(within(members[1]).getByLabelText('Rôle de bob@example.com'), 'viewer');
    expect(await screen.findByText('Rôle de bob@example.com : Lecteur.')).toBeInTheDocument();
    expect(log.map((call) => [call.method, call.path, call.body])).toEqual([['PATCH', `/workspaces/w-agency/members/${BOB}`, { role: 'viewer' }]]);

    await user.click(within(members[1]).getByRole('button', { name: 'Retirer bob@example.com' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Retirer ce membre ?' });
    expect(dialog).toHaveTextContent('bob@example.com n\'aura plus accès à « Agence Nord »');
    await user.click(within(dialog).getByRole('button', { name: 'Retirer' }));
    await waitFor(() => expect(screen.getAllByTestId('member-row')).toHaveLength(1));
    expect(screen.getByText("bob@example.com ne fait plus partie de l'espace.")).toBeInTheDocument();

    // Pending invitations: the expiry, or "expired" once past.
    const rows = screen.getAllByTestId('invitation-row');
    expect(rows[0]).toHaveTextContent(/chloe@example\.com.*Expire le 10 janv\. 2099/);
    expect(within(rows[1]).getByTestId('invitation-expired')).toHaveTextContent('Expirée');

    await user.click(within(rows[1]).getByRole('button', { name: "Renvoyer l'invitation à dan@example.com" }));
    expect(await screen.findByText('Nouvelle invitation envoyée à dan@example.com.')).toBeInTheDocument();
    await waitFor(() => expect(within(screen.getAllByTestId('invitation-row')[1]).queryByTestId('invitation-expired')).not.toBeInTheDocument());

    await user.click(within(rows[0]).getByRole('button', { name: "Révoquer l'invitation de chloe@example.com" }));
    await waitFor(() => expect(screen.getAllByTestId('invitation-row')).toHaveLength(1));
  });

  it('invites by address and role, and says why an invitation is refused', async () => {
    startIn('w-agency');
    const log: ApiCall[] = [];
    mockApi(membersServer('owner', log));
    const { user } = renderApp('/workspace');
    const form = await screen.findByTestId('invite-form');

    await user.type(within(form).getByLabelText('Adresse email'), 'bob@example.com');
    await user.click(within(form).getByRole('button', { name: "Envoyer l'invitation" }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Cette personne est déjà membre de l\'espace.');

    await user.clear(within(form).getByLabelText('Adresse email'));
    await user.type(within(form).getByLabelText('Adresse email'), 'eve@example.com');
    await user.selectOptions(within(form).getByLabelText('Rôle'), 'viewer');
    expect(form).toHaveTextContent('Peut consulter, exporter et télécharger, sans rien modifier.');
    await user.click(within(form).getByRole('button', { name: "Envoyer l'invitation" }));
    expect(await screen.findByText('Invitation envoyée à eve@example.com.')).toBeInTheDocument();
    expect(log.at(-1)?.body).toEqual({ email: 'eve@example.com', role: 'viewer' });
    expect(within(form).getByLabelText('Adresse email')).toHaveValue('');
    expect(await screen.findByText('eve@example.com')).toBeInTheDocument();
  });

  it('an owner renames the workspace, and deletes it only once its name is typed', async () => {
    startIn('w-agency');
    const log: ApiCall[] = [];
    mockApi(membersServer('owner', log));
    const { user, router } = renderApp('/workspace');
    const input = await screen.findByLabelText("Nom de l'espace");
    await user.clear(input);
    await user.type(input, 'Agence Nord-Est');
    await user.click(screen.getByRole('button', { name: 'Renommer' }));
    expect(await screen.findByText('Espace renommé « Agence Nord-Est ».')).toBeInTheDocument();
    await waitFor(() => expect(switcher()).toHaveTextContent('Agence Nord-Est'));

    await user.click(screen.getByRole('button', { name: "Supprimer l'espace…" }));
    const dialog = screen.getByRole('alertdialog', { name: 'Supprimer « Agence Nord-Est » ?' });
    const confirm = within(dialog).getByRole('button', { name: 'Supprimer définitivement' });
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Pour confirmer, saisissez le nom de l'espace : Agence Nord-Est"), 'Agence Nord-Est');
    await user.click(confirm);

    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(await screen.findByText('Espace « Agence Nord-Est » supprimé.')).toBeInTheDocument();
    expect(log.at(-1)).toMatchObject({ method: 'DELETE', path: '/workspaces/w-agency' });
    expect(useWorkspaceStore.getState().id).toBeNull();
    expect(switcher()).toHaveTextContent('Mon espace');
    // A deliberate departure is not announced as a lost workspace.
    expect(screen.queryByText(/n'est plus accessible/)).not.toBeInTheDocument();
  });

  it('an editor reads the members and roles, sees no invitations, and can leave', async () => {
    startIn('w-agency');
    const log: ApiCall[] = [];
    mockApi(membersServer('editor', log));
    const { user, router } = renderApp('/workspace');
    const members = await screen.findAllByTestId('member-row');
    expect(within(members[1]).getByTestId('role-badge')).toHaveTextContent('Éditeur');
    expect(screen.queryByTestId('member-role')).not.toBeInTheDocument();
    expect(screen.queryByTestId('remove-member')).not.toBeInTheDocument();
    expect(screen.queryByTestId('workspace-invitations')).not.toBeInTheDocument();
    expect(screen.queryByTestId('workspace-delete')).not.toBeInTheDocument();
    expect(screen.getByTestId('workspace-name')).toHaveTextContent('Agence Nord');

    await user.click(screen.getByRole('button', { name: "Quitter l'espace" }));
    const dialog = screen.getByRole('alertdialog', { name: 'Quitter « Agence Nord » ?' });
    await user.click(within(dialog).getByRole('button', { name: "Quitter l'espace" }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(log.map((call) => `${call.method} ${call.path}`)).toEqual([`DELETE /workspaces/w-agency/members/${ME}`]);
    expect(await screen.findByText('Vous avez quitté « Agence Nord ».')).toBeInTheDocument();
    expect(switcher()).toHaveTextContent('Mon espace');
  });

  it('says the personal workspace is the user\'s alone', async () => {
    mockApi(server());
    renderApp('/workspace');
    expect(await screen.findByTestId('workspace-personal')).toHaveTextContent("Votre espace personnel n'appartient qu'à vous");
    expect(screen.queryByTestId('workspace-members')).not.toBeInTheDocument();
  });
});

// ---------- A viewer ----------

describe('a viewer of the workspace', () => {
  it('reads the creatives without the controls that change them, under a "read only" notice', async () => {
    startIn('w-agency');
    const fetchMock = mockApi(server(() => 'viewer'));
    const { user } = renderApp('/creatives');
    const grid = await screen.findByTestId('creatives-grid');
    expect(screen.getByTestId('read-only-notice')).toHaveTextContent(
      'Lecture seuleVous êtes lecteur de cet espace : vous pouvez consulter, exporter et télécharger, sans rien modifier.',
    );
    expect(screen.queryByTestId('new-creative')).not.toBeInTheDocument();

    await user.click(within(grid).getByRole('link', { name: 'Affiche agence' }));
    expect(await screen.findByTestId('creative-name')).toHaveTextContent('Affiche agence');
    expect(screen.getByTestId('creative-facts')).toHaveTextContent('MarqueÉvianCampagne—NotesPour le métro');
    for (const control of ['rename-creative', 'delete-creative', 'simulate-creative']) {
      expect(screen.queryByTestId(control)).not.toBeInTheDocument();
    }
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(screen.getByTestId('creative-heatmap')).toBeInTheDocument();
    expect(calls(fetchMock).filter((call) => !call.startsWith('GET'))).toEqual([]);
  });

  it('gets no form on the pages that only add something', async () => {
    startIn('w-agency');
    mockApi(server(() => 'viewer'));
    renderApp('/locations/new');
    expect(await screen.findByTestId('cannot-change')).toHaveTextContent(
      "Votre rôle de lecteur dans cet espace ne permet pas d'y ajouter quoi que ce soit.",
    );
    expect(screen.queryByTestId('location-form')).not.toBeInTheDocument();
  });
});

// ---------- The invitation page ----------

describe('an invitation link', () => {
  it('asks a signed-out visitor to sign in first, at the same address', async () => {
    resetAuthMock(null);
    renderApp('/invitations/tok');
    expect(await screen.findByTestId('invitation-sign-in')).toHaveTextContent("Connectez-vous ou créez un compte avec l'adresse qui a reçu l'invitation");
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });

  it('joins the workspace, works in it and goes home', async () => {
    let joined = false;
    const client = { id: 'w-client', name: 'Client Sud', role: 'viewer', personal: false };
    const fetchMock = mockApi(
      server(
        () => 'owner',
        ({ method, path }) => {
          if (method === 'POST' && path === '/invitations/tok/accept') {
            joined = true;
            return { body: { workspace_id: 'w-client', role: 'viewer' } };
          }
          if (method === 'GET' && path === '/creatives') return { body: { items: [], next_cursor: null } };
          return undefined;
        },
        () => (joined ? [personal, client] : [personal]),
      ),
    );
    const { user, router } = renderApp('/invitations/tok');
    expect(await screen.findByRole('heading', { level: 1, name: 'Invitation à un espace de travail' })).toBeInTheDocument();
    expect(screen.getByText('Vous le rejoindrez avec le compte ada@example.com.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: "Rejoindre l'espace" }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    expect(await screen.findByText('Bienvenue dans « Client Sud » ! Votre rôle : Lecteur.')).toBeInTheDocument();
    expect(switcher()).toHaveTextContent('Client Sud');
    expect(await screen.findByTestId('read-only-notice')).toBeInTheDocument();
    const last = fetchMock.mock.calls.at(-1)!;
    expect(requestOf(...last).headers.get('X-Workspace-Id')).toBe('w-client');
  });

  it.each([
    [404, 'not_found', 'invitation-used', "Cette invitation n'est plus valable : elle a déjà été utilisée ou a été révoquée."],
    [410, 'invitation_expired', 'invitation-expired', 'Cette invitation a expiré (une invitation est valable 7 jours).'],
  ])('says so when it answers %i %s', async (status, code, testId, text) => {
    mockApi(server(() => 'owner', ({ method, path }) => (method === 'POST' && path === '/invitations/tok/accept' ? { status, body: { code, message: 'x', details: {} } } : undefined)));
    const { user } = renderApp('/invitations/tok');
    await user.click(await screen.findByRole('button', { name: "Rejoindre l'espace" }));
    expect(await screen.findByTestId(testId)).toHaveTextContent(text);
    expect(screen.getByRole('link', { name: 'Aller à mes créations' })).toHaveAttribute('href', '/');
  });

  it('offers to switch accounts when it was sent to another address', async () => {
    mockApi(
      server(() => 'owner', ({ method, path }) =>
        method === 'POST' && path === '/invitations/tok/accept'
          ? { status: 403, body: { code: 'invitation_for_another_account', message: 'x', details: {} } }
          : undefined,
      ),
    );
    const { user, router } = renderApp('/invitations/tok');
    await user.click(await screen.findByRole('button', { name: "Rejoindre l'espace" }));
    expect(await screen.findByTestId('invitation-otherAccount')).toHaveTextContent(
      'Cette invitation a été envoyée à une autre adresse que ada@example.com.',
    );
    await user.click(screen.getByRole('button', { name: 'Se déconnecter et changer de compte' }));
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });
    expect(await screen.findByTestId('invitation-sign-in')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/invitations/tok');
  });
});

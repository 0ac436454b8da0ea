import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { i18n } from '@/lib/i18n';
import { emptyLists, mockApi } from '@/testing/api-mock';
import { authClient, authError, emit, fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

beforeEach(() => {
  resetAuthMock(fakeSession());
});

const chatToggle = () => screen.queryByRole('button', { name: 'Assistant' });

describe('session loading', () => {
  it('shows a full-screen spinner while the session is being determined', async () => {
    let resolve: (value: unknown) => void = () => {};
    authClient.getSession.mockReturnValue(new Promise((r) => (resolve = r)));
    renderApp('/creatives');
    expect(screen.getByTestId('full-screen-spinner')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Chargement…');
    act(() => resolve({ data: { session: null }, error: null }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });

  it('logs a session load failure and treats the user as signed out', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    authClient.getSession.mockResolvedValue({ data: { session: null }, error: new Error('storage broken') });
    renderApp('/creatives');
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(consoleError).toHaveBeenCalled();
  });

  it('treats a rejected getSession the same way', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    authClient.getSession.mockRejectedValue(new Error('network'));
    renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(consoleError).toHaveBeenCalled();
  });
});

describe('signed out', () => {
  it('shows only the login screen on a deep link, then the page asked for after sign-in', async () => {
    resetAuthMock(null);
    renderApp('/locations');
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    expect(chatToggle()).not.toBeInTheDocument();

    act(() => emit('SIGNED_IN', fakeSession()));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();
  });
});

describe('signed in', () => {
  it('redirects / to /creatives', async () => {
    const { router } = renderApp('/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes créations' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/creatives');
  });

  it.each([
    ['/creatives', 'Mes créations'],
    ['/locations', 'Mes emplacements'],
    ['/simulation', 'Mes simulations'],
    ['/heatmap', 'Mes heatmaps'],
    ['/heatmap/new', 'Nouvelle heatmap'],
    ['/heatmap/results/42', 'Résultats de la heatmap'],
    ['/heatmap/abc', 'Heatmap du média'],
    ['/no/such/page', 'Page introuvable'],
  ])('renders %s with its title', async (path, title) => {
    renderApp(path);
    // The first import of a page's chunk (the simulation page's is big) is slow on a busy machine.
    expect(await screen.findByRole('heading', { level: 1, name: title }, { timeout: 5000 })).toBeInTheDocument();
  });

  it('shows the navigation entries and signs out', async () => {
    const { user } = renderApp('/creatives');
    const nav = await screen.findByRole('navigation', { name: 'Navigation principale' });
    for (const name of ['Créations', 'Emplacements', 'Rendu', 'Heatmap']) {
      expect(within(nav).getByRole('link', { name })).toBeInTheDocument();
    }
    await user.click(within(nav).getByRole('link', { name: 'Emplacements' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Rechercher un emplacement...')).toBeInTheDocument();

    await user.click(within(nav).getByTestId('user-menu'));
    await user.click(within(nav).getByRole('button', { name: 'Déconnexion' }));
    expect(authClient.signOut).toHaveBeenCalled();
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });

  it('switches language, updating <html lang> and localStorage', async () => {
    const { user } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    expect(document.documentElement.lang).toBe('fr');
    await user.selectOptions(screen.getByLabelText('Langue'), 'en');
    expect(await screen.findByRole('heading', { level: 1, name: 'My Creatives' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Creative' })).toBeInTheDocument();
    await user.click(screen.getByTestId('user-menu'));
    expect(screen.getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('en');
    expect(window.localStorage.getItem('regard-language')).toBe('en');
    expect(i18n.language).toBe('en');
  });
});

describe('chat widget', () => {
  it('is hidden on exactly /heatmap', async () => {
    renderApp('/heatmap');
    await screen.findByRole('heading', { level: 1, name: 'Mes heatmaps' });
    expect(chatToggle()).not.toBeInTheDocument();
    expect(screen.queryByTestId('chat-widget')).not.toBeInTheDocument();
  });

  it.each(['/heatmap/new', '/heatmap/results/1', '/heatmap/m1', '/creatives', '/locations', '/simulation'])(
    'is shown on %s',
    async (path) => {
      renderApp(path);
      await screen.findByRole('heading', { level: 1 });
      expect(chatToggle()).toBeInTheDocument();
    },
  );

  it('appears and disappears while navigating to and from /heatmap', async () => {
    const { router } = renderApp('/heatmap/new');
    await screen.findByRole('heading', { level: 1, name: 'Nouvelle heatmap' });
    expect(chatToggle()).toBeInTheDocument();
    await act(() => router.navigate('/heatmap'));
    await screen.findByRole('heading', { level: 1, name: 'Mes heatmaps' });
    expect(chatToggle()).not.toBeInTheDocument();
  });

  it('opens with the welcome message and answers that it is not available yet', async () => {
    const { user } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    const toggle = chatToggle()!;
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');

    const panel = screen.getByRole('dialog', { name: 'Assistant' });
    expect(within(panel).getByText('Bonjour ! Comment puis-je vous aider ?')).toBeInTheDocument();
    const input = within(panel).getByPlaceholderText('Posez votre question...');
    expect(input).toHaveFocus();

    await user.type(input, 'Quelle création est la meilleure ?{Enter}');
    const log = within(panel).getByRole('log');
    expect(within(log).getByText('Quelle création est la meilleure ?')).toBeInTheDocument();
    expect(log).toHaveTextContent("L'assistant n'est pas encore disponible");
    expect(input).toHaveValue('');

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(toggle).toHaveFocus();
  });

  it('speaks English when the interface is in English', async () => {
    await i18n.changeLanguage('en');
    const { user } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'My Creatives' });
    await user.click(chatToggle()!);
    expect(screen.getByText('Hello! How can I help you?')).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Ask your question...')).toBeInTheDocument();
  });
});

describe('a session ended elsewhere', () => {
  it('shows the login screen with a notice on the next 401, then the same page after signing in', async () => {
    // A global sign-out on another device: the stored token is refused and so is its refresh.
    authClient.refreshSession.mockResolvedValue({
      data: { user: null, session: null },
      error: authError('session_not_found', 'Session not found', 403),
    });
    mockApi(() => ({ status: 401, body: { code: 'unauthorized', message: 'x', details: { reason: 'session_not_found' } } }));
    renderApp('/locations');

    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.getByTestId('session-ended')).toHaveTextContent(
      'Votre session a pris fin, par exemple après une déconnexion sur un autre appareil.',
    );
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    expect(authClient.signOut).toHaveBeenCalledTimes(1);
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });

    mockApi(emptyLists);
    act(() => emit('SIGNED_IN', fakeSession()));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();

    // A later sign-out of one's own shows no such notice.
    await userEvent.click(screen.getByTestId('user-menu'));
    await userEvent.click(screen.getByRole('button', { name: 'Déconnexion' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.queryByTestId('session-ended')).not.toBeInTheDocument();
  });
});

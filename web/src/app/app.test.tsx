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

  it('shows the navigation entries, Logout the last, and signs out', async () => {
    const { user } = renderApp('/creatives');
    const nav = await screen.findByRole('navigation', { name: 'Navigation principale' });
    for (const name of ['Créations', 'Emplacements', 'Rendu', 'Heatmap']) {
      expect(within(nav).getByRole('link', { name })).toBeInTheDocument();
    }
    await user.click(within(nav).getByRole('link', { name: 'Emplacements' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('Rechercher un emplacement...')).toBeInTheDocument();

    // Logout is an entry of the navigation itself, after the user menu (which keeps the account).
    const logout = within(nav).getByRole('button', { name: 'Déconnexion' });
    expect(logout.closest('.user-menu')).toBeNull();
    expect(within(nav).getByTestId('user-menu').compareDocumentPosition(logout) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await user.click(within(nav).getByTestId('user-menu'));
    expect(within(nav).getByRole('link', { name: 'Mon compte' })).toBeInTheDocument();
    expect(within(nav).getAllByRole('button', { name: 'Déconnexion' })).toEqual([logout]);
    await user.click(logout);
    expect(authClient.signOut).toHaveBeenCalled();
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });

  it('opens a new page at its top, and Back returns to where the page was left', async () => {
    const scrollTo = vi.spyOn(window, 'scrollTo');
    const original = Object.getOwnPropertyDescriptor(window, 'scrollY');
    const scrolled = (y: number) => Object.defineProperty(window, 'scrollY', { value: y, configurable: true });
    try {
      const { router } = renderApp('/heatmap/new');
      await screen.findByRole('heading', { level: 1, name: 'Nouvelle heatmap' });
      scrolled(700);
      scrollTo.mockClear();
      await act(() => router.navigate('/heatmap/results/42'));
      await screen.findByRole('heading', { level: 1, name: 'Résultats de la heatmap' });
      expect(scrollTo).toHaveBeenLastCalledWith(0, 0);

      scrolled(0);
      await act(() => router.navigate(-1));
      await screen.findByRole('heading', { level: 1, name: 'Nouvelle heatmap' });
      expect(scrollTo).toHaveBeenLastCalledWith(0, 700);
    } finally {
      if (original) Object.defineProperty(window, 'scrollY', original);
      else Reflect.deleteProperty(window, 'scrollY');
    }
  });

  describe('phone menu', () => {
    const menuButton = () => screen.getByRole('button', { name: 'Menu' });

    it('opens the navigation panel and closes on Escape, focus back on the button', async () => {
      const { user } = renderApp('/creatives');
      await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
      const nav = screen.getByRole('navigation', { name: 'Navigation principale' });
      expect(menuButton()).toHaveAttribute('aria-expanded', 'false');
      expect(menuButton()).toHaveAttribute('aria-controls', nav.id);
      expect(nav).not.toHaveClass('topbar__nav--open');

      await user.click(menuButton());
      expect(menuButton()).toHaveAttribute('aria-expanded', 'true');
      expect(nav).toHaveClass('topbar__nav--open');

      // The workspace comes first in the panel, then the sections.
      await user.tab();
      expect(within(nav).getByTestId('workspace-switcher')).toHaveFocus();
      await user.tab();
      expect(within(nav).getByRole('link', { name: 'Créations' })).toHaveFocus();
      await user.keyboard('{Escape}');
      expect(menuButton()).toHaveAttribute('aria-expanded', 'false');
      expect(menuButton()).toHaveFocus();
    });

    it('closes when a link is chosen, the current page included', async () => {
      const { user } = renderApp('/creatives');
      await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
      const nav = screen.getByRole('navigation', { name: 'Navigation principale' });

      await user.click(menuButton());
      await user.click(within(nav).getByRole('link', { name: 'Emplacements' }));
      expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();
      expect(menuButton()).toHaveAttribute('aria-expanded', 'false');

      await user.click(menuButton());
      await user.click(within(nav).getByRole('link', { name: 'Emplacements' }));
      expect(menuButton()).toHaveAttribute('aria-expanded', 'false');
    });

    it('closes on a click outside the header, and leaves Escape to an open user menu', async () => {
      const { user } = renderApp('/creatives');
      const heading = await screen.findByRole('heading', { level: 1, name: 'Mes créations' });

      await user.click(menuButton());
      await user.click(screen.getByTestId('user-menu'));
      await user.keyboard('{Escape}');
      expect(screen.getByTestId('user-menu')).toHaveAttribute('aria-expanded', 'false');
      expect(menuButton()).toHaveAttribute('aria-expanded', 'true');

      await user.click(heading);
      expect(menuButton()).toHaveAttribute('aria-expanded', 'false');
    });
  });

  it('switches language, updating <html lang> and localStorage', async () => {
    const { user } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    expect(document.documentElement.lang).toBe('fr');
    await user.selectOptions(screen.getByLabelText('Langue'), 'en');
    expect(await screen.findByRole('heading', { level: 1, name: 'My Creatives' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Creative' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Logout' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('en');
    expect(window.localStorage.getItem('regard-language')).toBe('en');
    expect(i18n.language).toBe('en');
  });
});

describe('chat widget', () => {
  it.each(['/heatmap', '/heatmap/'])('is hidden on the heatmap list at %s', async (path) => {
    renderApp(path);
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

  it('opens with the welcome message, streams the answer and follows its links', async () => {
    const asked: unknown[] = [];
    mockApi((call) => {
      if (call.method === 'POST' && call.path === '/assistant/chat') {
        asked.push(call.body);
        return {
          body: {
            answer: 'Votre meilleure création est « Summer Sale » : score 83/100.',
            links: [
              { label: 'Summer Sale', href: '/creatives/c1' },
              { label: 'Ailleurs', href: 'https://example.com/' },
            ],
            intent: 'best',
          },
        };
      }
      if (call.path === '/creatives/c1') return { status: 404, body: { code: 'not_found', message: 'x', details: {} } };
      return emptyLists(call);
    });
    const { user, router } = renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    const toggle = chatToggle()!;
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');

    const panel = screen.getByRole('dialog', { name: 'Assistant' });
    expect(within(panel).getByText('Bonjour ! Comment puis-je vous aider ?')).toBeInTheDocument();
    const input = within(panel).getByPlaceholderText('Posez votre question...');
    expect(input).toHaveFocus();
    // Suggestions of the page.
    expect(within(panel).getByRole('button', { name: 'Quelle création a le meilleur score ?' })).toBeInTheDocument();

    await user.type(input, 'Quelle création est la meilleure ?{Enter}');
    const log = within(panel).getByRole('log');
    expect(within(log).getByText('Quelle création est la meilleure ?')).toBeInTheDocument();
    await within(log).findByText('Votre meilleure création est « Summer Sale » : score 83/100.');
    expect(input).toHaveValue('');
    expect(asked).toEqual([
      { messages: [{ role: 'user', content: 'Quelle création est la meilleure ?' }], locale: 'fr', path: '/creatives' },
    ]);
    // Only in-app links become buttons; they navigate inside the app.
    expect(within(log).queryByRole('button', { name: 'Ailleurs' })).not.toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Summer Sale' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives/c1'));
    // The conversation is kept for the tab.
    expect(window.sessionStorage.getItem('regard-assistant')).toContain('Summer Sale');

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(toggle).toHaveFocus();
  });

  it('forgets the conversation when the user signs out', async () => {
    window.sessionStorage.setItem('regard-assistant', JSON.stringify([{ id: 1, author: 'user', text: 'secret' }]));
    renderApp('/creatives');
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    expect(window.sessionStorage.getItem('regard-assistant')).not.toBeNull();
    act(() => emit('SIGNED_OUT', null));
    await screen.findByRole('heading', { level: 1, name: 'Connexion' });
    expect(window.sessionStorage.getItem('regard-assistant')).toBeNull();
  });

  it('shows a translated error when the question is refused', async () => {
    mockApi((call) =>
      call.method === 'POST' && call.path === '/assistant/chat'
        ? { status: 429, body: { code: 'rate_limited', message: 'x', details: {} } }
        : emptyLists(call),
    );
    const { user } = renderApp('/locations');
    await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' });
    await user.click(chatToggle()!);
    await user.click(screen.getByRole('button', { name: 'Comment tracer les coins du panneau ?' }));
    expect(await screen.findByText(/Patientez un instant/)).toBeInTheDocument();
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

describe('help pages', () => {
  it('lists the articles and shows one, whose in-app links navigate', async () => {
    mockApi((call) => {
      if (call.path === '/help') {
        expect(call.query.get('locale')).toBe('fr');
        return { body: { items: [{ slug: 'scores', title: 'Ce que veulent dire les scores', summary: 'Chaque chiffre…' }] } };
      }
      if (call.path === '/help/scores')
        return {
          body: {
            slug: 'scores',
            locale: 'fr',
            title: 'Ce que veulent dire les scores',
            summary: 'Chaque chiffre…',
            html: '<h2>Focalisation (0–100)</h2><p>Voir <a href="/heatmap/new">une nouvelle heatmap</a>.</p>',
          },
        };
      return emptyLists(call);
    });
    const { user, router } = renderApp('/help');
    await screen.findByRole('heading', { level: 1, name: 'Aide' });
    await user.click(await screen.findByRole('link', { name: 'Ce que veulent dire les scores' }));
    await screen.findByRole('heading', { level: 1, name: 'Ce que veulent dire les scores' });
    expect(screen.getByRole('heading', { level: 2, name: 'Focalisation (0–100)' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'une nouvelle heatmap' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/heatmap/new'));
  });

  it('says when an article does not exist', async () => {
    renderApp('/help/nope');
    expect(await screen.findByText("Cet article d'aide n'existe pas.")).toBeInTheDocument();
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
    await userEvent.click(screen.getByRole('button', { name: 'Déconnexion' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.queryByTestId('session-ended')).not.toBeInTheDocument();
  });
});

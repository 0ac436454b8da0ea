import { Suspense, useEffect, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet, ScrollRestoration, useLocation } from 'react-router';

import { LanguageSwitch } from '@/components/language-switch';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { PageSpinner } from '@/components/ui/spinner';
import { Toaster } from '@/components/ui/toast';
import { LogoutButton } from '@/features/auth/components/logout-button';
import { UserMenu } from '@/features/auth/components/user-menu';
import { ChatWidget } from '@/features/chat/components/chat-widget';
import { useHeatmapLiveUpdates } from '@/features/heatmap/api/live-updates';
import { ThemeSwitch } from '@/features/theme/components/theme-switch';
import { WorkspaceSwitcher } from '@/features/workspaces/components/workspace-switcher';
import { sectionOf } from '@/features/workspaces/lib/address';
import { cn } from '@/lib/cn';
import { usePopover } from '@/lib/use-popover';
import { useWorkspace, useWorkspaceStore } from '@/lib/workspace';

const NAV_ITEMS = [
  { to: '/creatives', key: 'nav.creatives' },
  { to: '/locations', key: 'nav.locations' },
  { to: '/simulation', key: 'nav.simulation' },
  { to: '/heatmap', key: 'nav.heatmap' },
  { to: '/plans', key: 'nav.plans' },
] as const;

/**
 * The spec hides the assistant on the heatmap list only, not on its sub-pages. The router serves
 * the list at `/heatmap/` too, so trailing slashes don't count.
 */
function showsAssistant(pathname: string) {
  return pathname.replace(/\/+$/, '') !== '/heatmap';
}

/**
 * The frame of every signed-in page: header with the workspace, the navigation and the
 * preferences, the page, the assistant. The page and the assistant are keyed by the workspace:
 * a switch starts them afresh (nothing of the old workspace stays on screen), and a viewer sees
 * "read only" above the library's pages.
 */
export function AppLayout() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const showChat = showsAssistant(pathname);
  const workspaceKey = useWorkspaceStore((state) => state.id) ?? 'personal';
  const { canEdit, ready, switching } = useWorkspace();
  const readOnly = ready && !canEdit && sectionOf(pathname) !== null;
  // Live job progress reaches the heatmap caches on every page (heatmap pages hold the connection).
  useHeatmapLiveUpdates();
  // The phone menu (on wide screens its button is hidden and the navigation always shows). An
  // open user menu inside the panel takes Escape for itself.
  const {
    open: menuOpen,
    toggle: toggleMenu,
    close: closeMenu,
    rootRef: headerRef,
    buttonRef,
  } = usePopover<HTMLElement>((header) =>
    Boolean(header.querySelector('.user-menu [aria-expanded="true"], .ws-switcher [aria-expanded="true"]')),
  );
  const navId = useId();
  // The header's height as `--topbar-height` (it wraps on narrower screens): what a pinned panel
  // below it (the simulation preview) keeps clear of. Through the CSSOM: the CSP forbids style attributes.
  useEffect(() => {
    const header = headerRef.current;
    if (!header) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty('--topbar-height', `${header.offsetHeight}px`);
    measure();
    if (typeof ResizeObserver === 'undefined') return () => root.style.removeProperty('--topbar-height');
    const observer = new ResizeObserver(measure);
    observer.observe(header);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--topbar-height');
    };
  }, [headerRef]);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="topbar" ref={headerRef}>
        <span className="brand">{t('app.name')}</span>
        {/* Phones only (CSS): the navigation folds into a panel under this button. */}
        <button
          ref={buttonRef}
          type="button"
          className="topbar__menu-button"
          aria-expanded={menuOpen}
          aria-controls={navId}
          onClick={toggleMenu}
          data-testid="nav-menu-button"
        >
          <span className="topbar__menu-icon" aria-hidden="true" />
          <span className="topbar__menu-label">{t('nav.menu')}</span>
        </button>
        <nav
          id={navId}
          aria-label={t('nav.label')}
          className={cn('topbar__nav', menuOpen && 'topbar__nav--open')}
          // Choosing a link or a workspace closes the panel, even the current page's link (no new address then).
          onClick={(event) => {
            if ((event.target as Element).closest('a, .ws-switcher__item')) closeMenu();
          }}
        >
          {/* First in the navigation: after the brand on wide screens, atop the phone menu. */}
          <WorkspaceSwitcher />
          <ul className="nav">
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={({ isActive }) => cn('nav__link', isActive && 'nav__link--active')}>
                  {t(item.key)}
                </NavLink>
              </li>
            ))}
          </ul>
          {/* Outside the list: the list scrolls sideways on narrow screens and would clip the menu. */}
          <UserMenu />
          {/* The spec's last navigation entry, in the bar and in the phone menu. */}
          <LogoutButton className="nav__logout" />
        </nav>
        <div className="topbar__prefs" role="group" aria-label={t('settings.label')}>
          <LanguageSwitch />
          <ThemeSwitch />
        </div>
      </header>
      <main id="main" className="shell__main" tabIndex={-1}>
        {readOnly ? <ReadOnlyNotice /> : null}
        {/* Keyed by workspace (a switch starts the page afresh) and by path: a new boundary shows
            its spinner even during router transitions.
            The simulation page keeps one key for /simulation and /simulation/:id, so saving a new
            simulation (which moves to its address) keeps the editor and its live preview. */}
        <Suspense
          key={`${workspaceKey}:${pathname.startsWith('/simulation/') ? '/simulation' : pathname}`}
          fallback={<PageSpinner />}
        >
          {/* The page left by a switch waits for the router to move on, asking the new workspace nothing. */}
          {switching ? <PageSpinner /> : <Outlet />}
        </Suspense>
      </main>
      {showChat ? <ChatWidget key={workspaceKey} /> : null}
      {/* A new page opens at its top; Back and Forward return to where the page was left.
          Navigations that stay on a page (a filter, a saved draft) pass `preventScrollReset`. */}
      <ScrollRestoration />
      <Toaster />
    </div>
  );
}

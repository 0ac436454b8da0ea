import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

import { cn } from '@/lib/cn';
import { usePopover } from '@/lib/use-popover';

import { useAuth } from '../auth-context';

/** The account page's address. */
export const ACCOUNT_PATH = '/account';
/** The help pages' address. */
export const HELP_PATH = '/help';

/**
 * The signed-in user's menu in the navigation: their e-mail on the button,
 * then "My account" and "Help" (Logout is a navigation entry of its own). Closes on Escape,
 * on a click elsewhere and when the page changes.
 */
export function UserMenu() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const { pathname } = useLocation();
  const { open, toggle, close, rootRef: root, buttonRef: button } = usePopover<HTMLDivElement>();
  const menuId = useId();

  const email = user?.email ?? '';
  return (
    <div className="user-menu" ref={root}>
      <button
        ref={button}
        type="button"
        className={cn('user-menu__button', pathname === ACCOUNT_PATH && 'user-menu__button--active')}
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={t('nav.userMenu', { email })}
        onClick={toggle}
        data-testid="user-menu"
      >
        <span className="user-menu__avatar" aria-hidden="true">
          {email.charAt(0).toUpperCase()}
        </span>
        <span className="user-menu__email">{email}</span>
        <span className="user-menu__chevron" aria-hidden="true" />
      </button>
      <div id={menuId} className="user-menu__panel" hidden={!open}>
        <p className="user-menu__signed-in">
          {t('nav.signedInAs')}
          <strong className="user-menu__full-email">{email}</strong>
        </p>
        <Link className="user-menu__item" to={ACCOUNT_PATH} onClick={close} data-testid="account-link">
          {t('nav.account')}
        </Link>
        <Link className="user-menu__item" to={HELP_PATH} onClick={close} data-testid="help-link">
          {t('nav.help')}
        </Link>
      </div>
    </div>
  );
}

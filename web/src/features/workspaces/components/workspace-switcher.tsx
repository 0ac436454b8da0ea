import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

import { ConfirmDialog } from '@/components/ui/dialog';
import { cn } from '@/lib/cn';
import { useToast } from '@/lib/toast';
import { usePopover } from '@/lib/use-popover';
import { hasUnsavedChanges } from '@/lib/use-unsaved-changes';
import { useWorkspace } from '@/lib/workspace';

import { ACTIVITY_PATH } from '../lib/activity';
import { WORKSPACE_PATH } from '../lib/address';

import { CreateWorkspaceDialog } from './create-workspace-dialog';
import { RoleBadge } from './role-badge';
import { workspaceName } from './workspace-name';

/**
 * The header's workspace menu: the current workspace's name (with the user's role there when it
 * is shared) on the button; in the menu every workspace of the user, "New workspace…", for a
 * shared workspace "Members and settings", and the workspace's activity. Closes on Escape, on a
 * click elsewhere and when the page changes. Switching leaves the page: a form with unsaved
 * changes asks first.
 */
export function WorkspaceSwitcher() {
  const { t } = useTranslation();
  const { current, workspaces, ready, switchTo } = useWorkspace();
  const { pathname } = useLocation();
  const { open, toggle, close, rootRef, buttonRef } = usePopover<HTMLDivElement>();
  const [creating, setCreating] = useState(false);
  // A switch waiting for "leave without saving".
  const [confirming, setConfirming] = useState<{ id: string; to?: string } | null>(null);
  const go = (id: string, to?: string) => (hasUnsavedChanges() ? setConfirming({ id, to }) : switchTo(id, { to }));
  const toast = useToast();
  const menuId = useId();

  // A shared workspace whose name is not known yet (the list is loading) shows an ellipsis.
  const name = current.personal || ready ? workspaceName(t, current) : '…';
  return (
    <div className="ws-switcher" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className={cn('ws-switcher__button', (pathname === WORKSPACE_PATH || pathname === ACTIVITY_PATH) && 'ws-switcher__button--active')}
        aria-expanded={open}
        aria-controls={menuId}
        aria-label={t('workspace.switcher.label', { name })}
        title={t('workspace.switcher.label', { name })}
        onClick={toggle}
        data-testid="workspace-switcher"
      >
        <span className="ws-switcher__icon" aria-hidden="true" />
        <span className="ws-switcher__name" data-testid="workspace-current">
          {name}
        </span>
        {!current.personal && ready ? <RoleBadge role={current.role} className="ws-switcher__role" /> : null}
        <span className="user-menu__chevron" aria-hidden="true" />
      </button>
      <div id={menuId} className="ws-switcher__panel" hidden={!open} data-testid="workspace-menu">
        <p className="ws-switcher__heading">{t('workspace.switcher.heading')}</p>
        <ul className="ws-switcher__list">
          {(workspaces.length > 0 ? workspaces : [current]).map((workspace) => {
            const selected = workspace.id === current.id;
            return (
              <li key={workspace.id || 'personal'}>
                <button
                  type="button"
                  className={cn('ws-switcher__item', selected && 'ws-switcher__item--current')}
                  aria-current={selected ? 'true' : undefined}
                  onClick={() => {
                    close();
                    if (!selected) go(workspace.id);
                  }}
                  data-testid="workspace-option"
                >
                  <span className="ws-switcher__check" aria-hidden="true" />
                  <span className="ws-switcher__item-name">{workspaceName(t, workspace)}</span>
                  {workspace.personal ? null : <RoleBadge role={workspace.role} />}
                </button>
              </li>
            );
          })}
        </ul>
        <div className="ws-switcher__actions">
          <button
            type="button"
            className="user-menu__item"
            onClick={() => {
              close();
              setCreating(true);
            }}
            data-testid="create-workspace"
          >
            {t('workspace.switcher.create')}
          </button>
          {current.personal ? null : (
            <Link className="user-menu__item" to={WORKSPACE_PATH} onClick={close} data-testid="workspace-settings-link">
              {t('workspace.switcher.settings')}
            </Link>
          )}
          <Link className="user-menu__item" to={ACTIVITY_PATH} onClick={close} data-testid="workspace-activity-link">
            {t('workspace.switcher.activity')}
          </Link>
        </div>
      </div>
      {confirming ? (
        <ConfirmDialog
          title={t('unsaved.title')}
          confirmLabel={t('unsaved.leave')}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            setConfirming(null);
            switchTo(confirming.id, { to: confirming.to });
          }}
        >
          <p>{t('unsaved.body')}</p>
        </ConfirmDialog>
      ) : null}
      {creating ? (
        <CreateWorkspaceDialog
          onClose={() => setCreating(false)}
          onCreated={(workspace) => {
            setCreating(false);
            toast.show(t('workspace.create.done', { name: workspace.name }));
            // A new workspace is empty: its members page is where one starts (inviting people).
            go(workspace.id, WORKSPACE_PATH);
          }}
        />
      ) : null}
    </div>
  );
}

import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';

export type DialogProps = {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** `alertdialog` for confirmations. */
  role?: 'dialog' | 'alertdialog';
  /** Buttons at the bottom. */
  footer?: ReactNode;
  className?: string;
  describedBy?: string;
};

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: an overlay, focus moved inside on open (first focusable
 * element, or the element marked `data-autofocus`), Tab kept inside, Escape
 * and the close button close it, focus returns to where it was.
 */
export function Dialog({ title, onClose, children, role = 'dialog', footer, className, describedBy }: DialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const panel = panelRef.current;
    const target =
      panel?.querySelector<HTMLElement>('[data-autofocus]') ??
      panel?.querySelector('.dialog__body')?.querySelector<HTMLElement>(FOCUSABLE) ??
      panel?.querySelector<HTMLElement>(FOCUSABLE);
    target?.focus();
    return () => previous?.focus();
  }, []);

  const onKeyDown = (event: React.KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (event.key !== 'Tab' || !panelRef.current) return;
    const focusable = Array.from(panelRef.current.querySelectorAll<HTMLElement>(FOCUSABLE));
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="dialog-overlay" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        ref={panelRef}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        className={cn('dialog', className)}
        onKeyDown={onKeyDown}
      >
        <header className="dialog__header">
          <h2 id={titleId} className="dialog__title">
            {title}
          </h2>
          <Button variant="ghost" size="sm" onClick={onClose} aria-label={t('common.close')}>
            <span aria-hidden="true">×</span>
          </Button>
        </header>
        <div className="dialog__body">{children}</div>
        {footer ? <footer className="dialog__footer">{footer}</footer> : null}
      </div>
    </div>
  );
}

export type ConfirmDialogProps = {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  /** The confirm button's text while busy; "Deleting…" unless told. */
  busyLabel?: string;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
};

/** A yes/no confirmation (role=alertdialog); focus starts on Cancel, the safe choice. */
export function ConfirmDialog({ title, children, confirmLabel, busy, busyLabel, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const bodyId = useId();
  return (
    <Dialog
      role="alertdialog"
      title={title}
      onClose={onCancel}
      describedBy={bodyId}
      footer={
        <>
          <Button variant="secondary" onClick={onCancel} data-autofocus>
            {t('common.cancel')}
          </Button>
          <Button variant="danger" onClick={onConfirm} disabled={busy} data-testid="confirm-delete">
            {busy ? (busyLabel ?? t('common.deleting')) : confirmLabel}
          </Button>
        </>
      }
    >
      <div id={bodyId}>{children}</div>
      {error ? (
        <p role="alert" className="form-error">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

//! Draws the toasts of lib/toast.ts in one polite live region (`role="status"`), which exists
//! before any toast so screen readers announce what is added to it. Each toast leaves after
//! five seconds (started again when it is replaced) or on its close button.
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { TOAST_DURATION_MS, useToastStore, type Toast } from '@/lib/toast';

function ToastItem({ toast: item }: { toast: Toast }) {
  const { t } = useTranslation();
  const dismiss = useToastStore((state) => state.dismiss);

  // `shownAt` changes when the toast is replaced, which restarts its time.
  useEffect(() => {
    const timer = window.setTimeout(() => dismiss(item.id), TOAST_DURATION_MS);
    return () => window.clearTimeout(timer);
  }, [dismiss, item.id, item.shownAt]);

  return (
    <div className={cn('toast', `toast--${item.variant}`)} data-testid="toast">
      <p className="toast__message">{item.message}</p>
      <Button variant="ghost" size="sm" className="toast__close" onClick={() => dismiss(item.id)} aria-label={t('common.close')}>
        <span aria-hidden="true">×</span>
      </Button>
    </div>
  );
}

/** The toasts' live region; mounted once, in the app shell. */
export function Toaster() {
  const { t } = useTranslation();
  const toasts = useToastStore((state) => state.toasts);
  return (
    <section className="toaster" role="status" aria-label={t('toast.label')}>
      {toasts.map((item) => (
        <ToastItem key={item.id} toast={item} />
      ))}
    </section>
  );
}

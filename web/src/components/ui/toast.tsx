//! Draws the toasts of lib/toast.ts in one polite live region (`role="status"`), which exists
//! before any toast so screen readers announce what is added to it. Each toast leaves after
//! five seconds (started again when it is replaced) or on its close button; its time stops
//! while the pointer is over it or the focus inside it (it can be read, or its button reached),
//! and Escape in it closes it.
import { useEffect, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { TOAST_DURATION_MS, useToastStore, type Toast } from '@/lib/toast';

function ToastItem({ toast: item }: { toast: Toast }) {
  const { t } = useTranslation();
  const dismiss = useToastStore((state) => state.dismiss);

  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const paused = hovered || focused;

  // `shownAt` changes when the toast is replaced, which restarts its time; so does leaving it
  // after a pause (five full seconds to finish reading).
  useEffect(() => {
    if (paused) return;
    const timer = window.setTimeout(() => dismiss(item.id), TOAST_DURATION_MS);
    return () => window.clearTimeout(timer);
  }, [dismiss, item.id, item.shownAt, paused]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') dismiss(item.id);
  };

  return (
    <div
      className={cn('toast', `toast--${item.variant}`)}
      data-testid="toast"
      data-paused={paused || undefined}
      onPointerEnter={() => setHovered(true)}
      onPointerLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
      onKeyDown={onKeyDown}
    >
      <p className="toast__message">{item.message}</p>
      <Button variant="ghost" size="sm" className="toast__close" onClick={() => dismiss(item.id)} aria-label={t('common.close')}>
        <span aria-hidden="true">×</span>
      </Button>
    </div>
  );
}

/**
 * The toasts' live region; mounted once, in the app shell. Toasts already waiting when it mounts
 * (one shown just before the shell appears, "password changed" after the new-password screen)
 * join it a frame later: a region announces what is added to it, not what it starts with.
 */
export function Toaster() {
  const { t } = useTranslation();
  const toasts = useToastStore((state) => state.toasts);
  const [ready, setReady] = useState(() => useToastStore.getState().toasts.length === 0);
  useEffect(() => {
    if (ready) return;
    const frame = requestAnimationFrame(() => setReady(true));
    return () => cancelAnimationFrame(frame);
  }, [ready]);
  return (
    <section className="toaster" role="status" aria-label={t('toast.label')}>
      {(ready ? toasts : []).map((item) => (
        <ToastItem key={item.id} toast={item} />
      ))}
    </section>
  );
}

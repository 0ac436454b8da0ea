//! The open or closed state of a menu or panel that a button opens (the user menu, the phone
//! navigation): closed again on a new page, on a pointer down outside its root, and on Escape,
//! which puts focus back on the button.
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';

/**
 * `keepEscape(root)`: whether an Escape belongs to something open inside the root (a menu in the
 * panel), which then closes alone.
 */
export function usePopover<Root extends HTMLElement>(keepEscape?: (root: Root) => boolean) {
  const { pathname } = useLocation();
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  const root = useRef<Root>(null);
  const button = useRef<HTMLButtonElement>(null);
  const keep = useRef(keepEscape);
  useEffect(() => {
    keep.current = keepEscape;
  });

  // A new page closes it (state adjusted during render, no effect needed).
  if (open && openedAt !== pathname) {
    setOpen(false);
    setOpenedAt(pathname);
  }

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || (root.current && keep.current?.(root.current))) return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const toggle = () => {
    setOpenedAt(pathname);
    setOpen((value) => !value);
  };
  return { open, toggle, close: () => setOpen(false), rootRef: root, buttonRef: button };
}

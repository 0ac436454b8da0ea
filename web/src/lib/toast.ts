//! The toasts' store: short confirmations ("Location saved.") that come and go on their own.
//!
//! Code outside React (the live event handlers) shows one with `toast()`; components use
//! `useToast()`. components/ui/toast.tsx draws them. A toast shown with the `id` of one already
//! shown replaces it, so a burst of events about the same thing makes one toast, not a pile.
import { create } from 'zustand';

/** How long a toast stays, in milliseconds. */
export const TOAST_DURATION_MS = 5000;

export type ToastVariant = 'success' | 'error' | 'info';

export type ToastOptions = {
  /** A toast with the same id replaces this one (and starts its five seconds again). */
  id?: string;
  variant?: ToastVariant;
};

export type Toast = { id: string; message: string; variant: ToastVariant; shownAt: number };

type ToastState = {
  toasts: Toast[];
  show: (message: string, options?: ToastOptions) => void;
  dismiss: (id: string) => void;
  clear: () => void;
};

let counter = 0;

export const useToastStore = create<ToastState>()((set) => ({
  toasts: [],
  show: (message, { id, variant = 'success' } = {}) => {
    counter += 1;
    const toast = { id: id ?? `toast-${counter}`, message, variant, shownAt: counter };
    set((state) => {
      const others = state.toasts.filter((item) => item.id !== toast.id);
      return { toasts: [...others, toast] };
    });
  },
  dismiss: (id) => set((state) => ({ toasts: state.toasts.filter((item) => item.id !== id) })),
  clear: () => set({ toasts: [] }),
}));

/** Shows a toast from anywhere, React or not. */
export function toast(message: string, options?: ToastOptions) {
  useToastStore.getState().show(message, options);
}

/** `{ show }` for components. */
export function useToast() {
  return { show: useToastStore((state) => state.show) };
}

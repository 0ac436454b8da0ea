import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { toast, TOAST_DURATION_MS } from '@/lib/toast';

import { Toaster } from './toast';

afterEach(() => {
  vi.useRealTimers();
});

describe('toasts', () => {
  it('shows a toast in the polite live region and closes it on its button', async () => {
    const user = userEvent.setup();
    render(<Toaster />);
    const region = screen.getByRole('status', { name: 'Notifications' });
    expect(region).toBeEmptyDOMElement();

    act(() => toast('Emplacement « Gare » enregistré.'));
    expect(region).toHaveTextContent('Emplacement « Gare » enregistré.');

    await user.click(screen.getByRole('button', { name: 'Fermer' }));
    expect(region).toBeEmptyDOMElement();
  });

  it('adds a toast shown before the region existed once the region is there, so that it is announced', async () => {
    toast('Votre mot de passe a été changé.');
    render(<Toaster />);
    const region = screen.getByRole('status', { name: 'Notifications' });
    expect(region).toBeEmptyDOMElement();
    expect(await screen.findByTestId('toast')).toHaveTextContent('Votre mot de passe a été changé.');
    expect(region).toContainElement(screen.getByTestId('toast'));
  });

  it('leaves on its own after five seconds', () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => toast('Création « Affiche » supprimée.'));
    expect(screen.getByTestId('toast')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(TOAST_DURATION_MS - 1);
    });
    expect(screen.getByTestId('toast')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
  });

  it('waits while the pointer is over it or the focus in it, then gives five full seconds again', () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => toast('Emplacement « Gare » enregistré.'));
    const item = screen.getByTestId('toast');
    act(() => {
      vi.advanceTimersByTime(TOAST_DURATION_MS - 100);
    });
    fireEvent.pointerEnter(item);
    act(() => {
      vi.advanceTimersByTime(3 * TOAST_DURATION_MS);
    });
    expect(screen.getByTestId('toast')).toBeInTheDocument();
    fireEvent.pointerLeave(item);
    // Focus on its close button also holds it.
    act(() => screen.getByRole('button', { name: 'Fermer' }).focus());
    act(() => {
      vi.advanceTimersByTime(3 * TOAST_DURATION_MS);
    });
    expect(screen.getByTestId('toast')).toBeInTheDocument();
    act(() => screen.getByRole('button', { name: 'Fermer' }).blur());
    act(() => {
      vi.advanceTimersByTime(TOAST_DURATION_MS - 1);
    });
    expect(screen.getByTestId('toast')).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
  });

  it('closes on Escape', () => {
    render(<Toaster />);
    act(() => toast('Création « Affiche » supprimée.'));
    fireEvent.keyDown(screen.getByTestId('toast'), { key: 'Escape' });
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
  });

  it('replaces a toast shown with the same id, and stacks the others', () => {
    render(<Toaster />);
    act(() => {
      toast('Heatmap prête : Été', { id: 'heatmap-1' });
      toast('Heatmap prête : Été', { id: 'heatmap-1' });
      toast('Heatmap en échec : Hiver', { id: 'heatmap-2', variant: 'error' });
    });
    const toasts = screen.getAllByTestId('toast');
    expect(toasts).toHaveLength(2);
    expect(toasts[1]).toHaveClass('toast--error');
  });
});

//! The life of one file in an upload batch, as a small pure state machine:
//!
//!   queued → uploading(progress) → creating → done(resultId)
//!                 ↘                    ↘
//!                  failed(code)         failed(code)
//!
//! `progress` is a fraction 0..1; `done` keeps the stored image's size (for the low-resolution
//! warning, lib/resolution.ts) and `failed` the error's details (for its message,
//! lib/error-message.ts). Events that make no sense in the current state
//! are ignored (the state is returned unchanged), so late progress events after a
//! failure, or a duplicate "done", cannot corrupt the display.

export type UploadState =
  | { status: 'queued' }
  | { status: 'uploading'; progress: number }
  | { status: 'creating' }
  | { status: 'done'; resultId: string; size?: ImageSize }
  | { status: 'failed'; code: string; details?: Record<string, unknown> };

/** An image's size in pixels, upright. */
export type ImageSize = { width: number; height: number };

export type UploadEvent =
  | { type: 'start' }
  | { type: 'progress'; loaded: number; total: number }
  | { type: 'uploaded' }
  | { type: 'created'; resultId: string; size?: ImageSize }
  | { type: 'fail'; code: string; details?: Record<string, unknown> };

export const initialUploadState: UploadState = { status: 'queued' };

/** The failed state of a `fail` event (details only when there are some). */
function failed({ code, details }: { code: string; details?: Record<string, unknown> }): UploadState {
  return details && Object.keys(details).length > 0 ? { status: 'failed', code, details } : { status: 'failed', code };
}

function fraction(loaded: number, total: number): number {
  if (!(total > 0) || !Number.isFinite(loaded)) return 0;
  return Math.min(1, Math.max(0, loaded / total));
}

export function uploadTransition(state: UploadState, event: UploadEvent): UploadState {
  switch (state.status) {
    case 'queued':
      if (event.type === 'start') return { status: 'uploading', progress: 0 };
      if (event.type === 'fail') return failed(event);
      return state;
    case 'uploading':
      if (event.type === 'progress') {
        // Progress never goes backwards.
        const progress = Math.max(state.progress, fraction(event.loaded, event.total));
        return progress === state.progress ? state : { status: 'uploading', progress };
      }
      if (event.type === 'uploaded') return { status: 'creating' };
      if (event.type === 'fail') return failed(event);
      return state;
    case 'creating':
      if (event.type === 'created') {
        return event.size ? { status: 'done', resultId: event.resultId, size: event.size } : { status: 'done', resultId: event.resultId };
      }
      if (event.type === 'fail') return failed(event);
      return state;
    case 'done':
    case 'failed':
      return state;
  }
}

/** Whether nothing more will happen to this file. */
export function isSettled(state: UploadState): boolean {
  return state.status === 'done' || state.status === 'failed';
}

/** Progress as a whole percentage for a progress bar (100 once the bytes are sent). */
export function progressPercent(state: UploadState): number {
  switch (state.status) {
    case 'queued':
      return 0;
    case 'uploading':
      return Math.round(state.progress * 100);
    case 'creating':
    case 'done':
      return 100;
    case 'failed':
      return 0;
  }
}

/** A file of a batch with its state. */
export type UploadItem = { id: string; name: string; size: number; state: UploadState };

/** Applies an event to one item of a list, leaving the others (and the list, if unchanged) as they are. */
export function applyToItem(items: UploadItem[], id: string, event: UploadEvent): UploadItem[] {
  let changed = false;
  const next = items.map((item) => {
    if (item.id !== id) return item;
    const state = uploadTransition(item.state, event);
    if (state === item.state) return item;
    changed = true;
    return { ...item, state };
  });
  return changed ? next : items;
}

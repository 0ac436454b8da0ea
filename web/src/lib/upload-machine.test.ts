import { describe, expect, it } from 'vitest';

import {
  applyToItem,
  initialUploadState,
  isSettled,
  progressPercent,
  uploadTransition,
  type UploadEvent,
  type UploadItem,
  type UploadState,
} from './upload-machine';

function run(events: UploadEvent[], from: UploadState = initialUploadState): UploadState {
  return events.reduce(uploadTransition, from);
}

describe('upload state machine', () => {
  it('goes queued → uploading → creating → done', () => {
    expect(initialUploadState).toEqual({ status: 'queued' });
    expect(run([{ type: 'start' }])).toEqual({ status: 'uploading', progress: 0 });
    expect(run([{ type: 'start' }, { type: 'progress', loaded: 25, total: 100 }])).toEqual({
      status: 'uploading',
      progress: 0.25,
    });
    expect(run([{ type: 'start' }, { type: 'uploaded' }])).toEqual({ status: 'creating' });
    expect(run([{ type: 'start' }, { type: 'uploaded' }, { type: 'created', resultId: 'c1' }])).toEqual({
      status: 'done',
      resultId: 'c1',
    });
  });

  it('fails from any unsettled state and keeps the code', () => {
    expect(run([{ type: 'fail', code: 'x' }])).toEqual({ status: 'failed', code: 'x' });
    expect(run([{ type: 'start' }, { type: 'fail', code: 'unsupported_media_type' }])).toEqual({
      status: 'failed',
      code: 'unsupported_media_type',
    });
    expect(run([{ type: 'start' }, { type: 'uploaded' }, { type: 'fail', code: 'internal' }])).toEqual({
      status: 'failed',
      code: 'internal',
    });
  });

  it('keeps the stored image\'s size when done, and the error\'s details when failed', () => {
    const creating: UploadState = { status: 'creating' };
    expect(uploadTransition(creating, { type: 'created', resultId: 'c', size: { width: 40, height: 30 } })).toStrictEqual({
      status: 'done',
      resultId: 'c',
      size: { width: 40, height: 30 },
    });
    const details = { width: 12000, height: 9000, max_pixels: 100_000_000, max_side: 30_000 };
    expect(uploadTransition({ status: 'uploading', progress: 1 }, { type: 'fail', code: 'image_too_large', details })).toStrictEqual({
      status: 'failed',
      code: 'image_too_large',
      details,
    });
    // Empty details (most errors) are not kept.
    expect(uploadTransition(creating, { type: 'fail', code: 'internal', details: {} })).toStrictEqual({ status: 'failed', code: 'internal' });
  });

  it('ignores events that do not fit the state', () => {
    const queued = initialUploadState;
    expect(uploadTransition(queued, { type: 'progress', loaded: 1, total: 2 })).toBe(queued);
    expect(uploadTransition(queued, { type: 'uploaded' })).toBe(queued);
    expect(uploadTransition(queued, { type: 'created', resultId: 'c' })).toBe(queued);

    const creating: UploadState = { status: 'creating' };
    expect(uploadTransition(creating, { type: 'progress', loaded: 1, total: 2 })).toBe(creating);
    expect(uploadTransition(creating, { type: 'start' })).toBe(creating);

    const done: UploadState = { status: 'done', resultId: 'c' };
    const failed: UploadState = { status: 'failed', code: 'x' };
    for (const settled of [done, failed]) {
      for (const event of [
        { type: 'start' },
        { type: 'progress', loaded: 1, total: 1 },
        { type: 'uploaded' },
        { type: 'created', resultId: 'd' },
        { type: 'fail', code: 'y' },
      ] satisfies UploadEvent[]) {
        expect(uploadTransition(settled, event)).toBe(settled);
      }
    }
  });

  it('clamps progress to 0..1, never goes back, and survives a zero total', () => {
    const uploading: UploadState = { status: 'uploading', progress: 0.5 };
    expect(uploadTransition(uploading, { type: 'progress', loaded: 10, total: 100 })).toBe(uploading);
    expect(uploadTransition(uploading, { type: 'progress', loaded: 300, total: 100 })).toEqual({
      status: 'uploading',
      progress: 1,
    });
    expect(uploadTransition({ status: 'uploading', progress: 0 }, { type: 'progress', loaded: 5, total: 0 })).toEqual({
      status: 'uploading',
      progress: 0,
    });
  });

  it('reports settled states and percentages', () => {
    expect(isSettled({ status: 'queued' })).toBe(false);
    expect(isSettled({ status: 'uploading', progress: 1 })).toBe(false);
    expect(isSettled({ status: 'creating' })).toBe(false);
    expect(isSettled({ status: 'done', resultId: 'c' })).toBe(true);
    expect(isSettled({ status: 'failed', code: 'x' })).toBe(true);

    expect(progressPercent({ status: 'queued' })).toBe(0);
    expect(progressPercent({ status: 'uploading', progress: 0.333 })).toBe(33);
    expect(progressPercent({ status: 'creating' })).toBe(100);
    expect(progressPercent({ status: 'done', resultId: 'c' })).toBe(100);
    expect(progressPercent({ status: 'failed', code: 'x' })).toBe(0);
  });

  it('applies an event to one item of a batch only', () => {
    const items: UploadItem[] = [
      { id: 'a', name: 'a.png', size: 1, state: initialUploadState },
      { id: 'b', name: 'b.png', size: 1, state: initialUploadState },
    ];
    const next = applyToItem(items, 'b', { type: 'start' });
    expect(next[0]).toBe(items[0]);
    expect(next[1].state).toEqual({ status: 'uploading', progress: 0 });
    // An ignored event leaves the very same list (no re-render).
    expect(applyToItem(items, 'a', { type: 'uploaded' })).toBe(items);
    expect(applyToItem(items, 'zzz', { type: 'start' })).toBe(items);
  });
});

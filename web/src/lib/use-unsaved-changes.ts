//! A warning before leaving a form with unsaved changes: an in-app navigation asks in the app's
//! own dialog ("Leave without saving" / "Stay"), closing or reloading the tab gets the browser's
//! own question (`beforeunload`). Nothing is asked when nothing changed or once the form says
//! its changes are saved (`allowLeave`, called just before it moves on after a save). The
//! question itself is `components/leave-dialog.tsx`. A workspace switch, which leaves whatever page
//! is open, asks first too (`hasUnsavedChanges`).
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

/** The navigation state that leaves a form without asking (its subject was just deleted). */
export const DISCARD_CHANGES = { discardChanges: true } as const;

/** The forms on screen that hold unsaved changes. */
const dirtyForms = new Set<symbol>();

/** Whether a form on screen holds unsaved changes (asked before what leaves the page regardless). */
export function hasUnsavedChanges(): boolean {
  return dirtyForms.size > 0;
}

export function useUnsavedChanges(dirty: boolean) {
  const leaving = useRef(false);
  const dirtyRef = useRef(dirty);
  useEffect(() => {
    dirtyRef.current = dirty;
    if (!dirty) leaving.current = false;
  }, [dirty]);
  // Read at navigation time, so a save that navigates at once is not held back.
  // A navigation that carries `DISCARD_CHANGES` as its state (after deleting what the form edits)
  // goes without asking.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirtyRef.current &&
      !leaving.current &&
      currentLocation.pathname !== nextLocation.pathname &&
      !(nextLocation.state as { discardChanges?: boolean } | null)?.discardChanges,
  );
  useEffect(() => {
    if (!dirty) return;
    const form = Symbol('dirty form');
    dirtyForms.add(form);
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (leaving.current) return;
      event.preventDefault();
      // Older browsers need a value to ask.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      dirtyForms.delete(form);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [dirty]);
  return {
    blocker,
    /** The changes are saved: the next navigation goes without asking. */
    allowLeave: () => {
      leaving.current = true;
    },
  };
}


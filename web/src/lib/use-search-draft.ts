//! A search field whose text lives in the address (`?q=`): typed into a draft at once, written
//! to the URL once typing pauses (history replaced, not flooded; the scroll stays), and following the URL when it
//! changes under the field (back, forward, a link). Used by the creatives and locations lists.
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';

/** Typing settles this long before the list is asked for. */
export const SEARCH_DEBOUNCE_MS = 250;

/** `{q, draft, setDraft}`: `q` is the committed search (the URL's), `draft` the field's text. */
export function useSearchDraft() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  const [shownQ, setShownQ] = useState(q);
  if (q !== shownQ) {
    setShownQ(q);
    setDraft(q);
  }
  useEffect(() => {
    if (draft === q) return;
    const timer = window.setTimeout(() => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (draft.trim()) next.set('q', draft);
          else next.delete('q');
          return next;
        },
        { replace: true, preventScrollReset: true },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [draft, q, setParams]);
  return { q, draft, setDraft };
}

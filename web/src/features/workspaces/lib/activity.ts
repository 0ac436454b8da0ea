//! The activity page's pure parts: its filters in the address (`?action=&subject_type=&actor_id=`),
//! the lines grouped by day, and which sentence tells each line.
import { dayKey } from '@/lib/dates';

import { ACTIVITY_ACTIONS, ACTIVITY_SUBJECTS, type Activity, type ActivityAction, type ActivityFilters, type ActivitySubject } from '../api/workspaces';

/** The activity page of the current workspace. */
export const ACTIVITY_PATH = '/workspace/activity';

/** The filters an address names; unknown values are left out (all). */
export function activityFiltersFrom(search: URLSearchParams): ActivityFilters {
  const action = search.get('action');
  const subject = search.get('subject_type');
  const actor = search.get('actor_id')?.trim();
  return {
    action: ACTIVITY_ACTIONS.find((known) => known === action),
    subject_type: ACTIVITY_SUBJECTS.find((known) => known === subject),
    actor_id: actor || undefined,
  };
}

/** `search` with one filter set (or removed when empty), the rest of the address kept. */
export function withActivityFilter(search: URLSearchParams, name: keyof ActivityFilters, value: string): URLSearchParams {
  const next = new URLSearchParams(search);
  if (value) next.set(name, value);
  else next.delete(name);
  return next;
}

/** The lines (newest first) in runs of the same local day, in order. */
export function groupByDay(items: readonly Activity[]): { day: string; items: Activity[] }[] {
  const groups: { day: string; items: Activity[] }[] = [];
  for (const item of items) {
    const day = dayKey(item.created_at);
    const last = groups.at(-1);
    if (last?.day === day) last.items.push(item);
    else groups.push({ day, items: [item] });
  }
  return groups;
}

/** Pairs that read better with a sentence of their own ("changed a member" is a change of role). */
const SPECIAL = {
  'changed:member': 'roleChanged',
  'deleted:member': 'memberRemoved',
  'changed:workspace': 'renamed',
} as const satisfies Partial<Record<`${ActivityAction}:${ActivitySubject}`, string>>;

export type SentenceKey = `activity.sentences.${ActivityAction}` | `activity.special.${(typeof SPECIAL)[keyof typeof SPECIAL]}`;

/** The translation key of a line's sentence (with `{{actor}}` and `{{subject}}`). */
export function sentenceKey({ action, subject_type }: Pick<Activity, 'action' | 'subject_type'>): SentenceKey {
  const pair = `${action}:${subject_type}`;
  const special = pair in SPECIAL ? SPECIAL[pair as keyof typeof SPECIAL] : undefined;
  return special ? `activity.special.${special}` : `activity.sentences.${action}`;
}

/** Subjects that have a page of their own in the library. */
export type LinkedSubject = Extract<ActivitySubject, 'creative' | 'location' | 'simulation' | 'heatmap'>;

/** Whether a line's subject has a page to open (it is one of the library's, and was not deleted then). */
export function linkedSubject(item: Pick<Activity, 'action' | 'subject_type'>): LinkedSubject | null {
  if (item.action === 'deleted') return null;
  const type = item.subject_type;
  return type === 'creative' || type === 'location' || type === 'simulation' || type === 'heatmap' ? type : null;
}

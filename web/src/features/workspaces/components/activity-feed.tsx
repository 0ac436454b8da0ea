import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Fragment, useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/error-message';
import { dayKey, formatLongDate, formatTime } from '@/lib/dates';
import { useWorkspace } from '@/lib/workspace';

import { ACTIVITY_ACTIONS, ACTIVITY_SUBJECTS, activityInfiniteQueryOptions, membersQueryOptions, type Activity, type ActivityFilters } from '../api/workspaces';
import { activityFiltersFrom, groupByDay, linkedSubject, sentenceKey, withActivityFilter, type LinkedSubject } from '../lib/activity';

import { workspaceName } from './workspace-name';

export type ActivityFeedProps = {
  /** The signed-in user (their own lines say "you"). */
  userId: string;
  /** The page of a subject of the library, for the lines that link to it. */
  pathOf: (type: LinkedSubject, id: string) => string;
};

/** Marks the places of the actor and the subject in a translated sentence (never typed by anyone). */
const MARK = '\u2063';

/**
 * The current workspace's activity, newest first, grouped by day: "Marie deleted the creative
 * “Winter sale”", with the time. The filters (action, kind of subject, member) live in the
 * address, so a filtered view can be shared and survives a reload; "Load more" follows the cursor.
 */
export function ActivityFeed({ userId, pathOf }: ActivityFeedProps) {
  const { t, i18n } = useTranslation();
  const { current, ready } = useWorkspace();
  const [search, setSearch] = useSearchParams();
  const filters = activityFiltersFrom(search);
  const ids = { action: useId(), subject: useId(), actor: useId() };
  const query = useInfiniteQuery({ ...activityInfiniteQueryOptions(current.id, filters), enabled: ready });
  const members = useQuery({ ...membersQueryOptions(current.id), enabled: ready && !current.personal });

  const setFilter = (name: keyof ActivityFilters, value: string) => setSearch(withActivityFilter(search, name, value), { replace: true });
  const filtered = Boolean(filters.action || filters.subject_type || filters.actor_id);
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  const actorName = (actor: Activity['actor']) => (actor ? (actor.user_id === userId ? t('activity.you', { name: actor.email ?? t('activity.noEmail') }) : (actor.email ?? t('activity.noEmail'))) : t('activity.deletedAccount'));

  if (!ready) return <Spinner />;
  return (
    <div className="activity" data-testid="activity">
      <p className="activity__intro">{current.personal ? t('activity.introPersonal') : t('activity.intro', { name: workspaceName(t, current) })}</p>
      <div className="activity__filters" role="group" aria-label={t('activity.filters.label')} data-testid="activity-filters">
        <div className="field">
          <Label htmlFor={ids.action}>{t('activity.filters.action')}</Label>
          <Select id={ids.action} value={filters.action ?? ''} onChange={(event) => setFilter('action', event.target.value)} data-testid="filter-action">
            <option value="">{t('activity.filters.allActions')}</option>
            {ACTIVITY_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {t(`activity.actionNames.${action}`)}
              </option>
            ))}
          </Select>
        </div>
        <div className="field">
          <Label htmlFor={ids.subject}>{t('activity.filters.subject')}</Label>
          <Select id={ids.subject} value={filters.subject_type ?? ''} onChange={(event) => setFilter('subject_type', event.target.value)} data-testid="filter-subject">
            <option value="">{t('activity.filters.allSubjects')}</option>
            {ACTIVITY_SUBJECTS.map((subject) => (
              <option key={subject} value={subject}>
                {t(`activity.subjectNames.${subject}`)}
              </option>
            ))}
          </Select>
        </div>
        {current.personal ? null : (
          <div className="field">
            <Label htmlFor={ids.actor}>{t('activity.filters.actor')}</Label>
            <Select id={ids.actor} value={filters.actor_id ?? ''} onChange={(event) => setFilter('actor_id', event.target.value)} data-testid="filter-actor">
              <option value="">{t('activity.filters.allActors')}</option>
              {(members.data?.items ?? []).map((member) => (
                <option key={member.user_id} value={member.user_id}>
                  {member.email ?? t('activity.noEmail')}
                </option>
              ))}
              {/* A member named by the address who is no longer in the list (or not loaded yet). */}
              {filters.actor_id && !members.data?.items.some((member) => member.user_id === filters.actor_id) ? (
                <option value={filters.actor_id}>{t('activity.filters.formerMember')}</option>
              ) : null}
            </Select>
          </div>
        )}
        {filtered ? (
          <Button variant="link" className="activity__clear" onClick={() => setSearch(new URLSearchParams(), { replace: true })} data-testid="clear-filters">
            {t('activity.filters.clear')}
          </Button>
        ) : null}
      </div>

      {query.isPending ? <Spinner /> : null}
      {query.isError && !query.data ? <QueryError error={query.error} onRetry={() => void query.refetch()} /> : null}
      {query.isSuccess && items.length === 0 ? (
        <p className="activity__empty" data-testid="activity-empty">
          {filtered ? t('activity.emptyFiltered') : t('activity.empty')}
        </p>
      ) : null}
      {groupByDay(items).map((group) => (
        <DayGroup key={group.day} day={group.day} language={i18n.language}>
          {group.items.map((item) => (
            <li key={item.id} className={`activity__item activity__item--${item.action}`} data-testid="activity-item" data-action={item.action}>
              <span className="activity__dot" aria-hidden="true" />
              <p className="activity__sentence" data-testid="activity-sentence">
                <Sentence item={item} actor={actorName(item.actor)} pathOf={pathOf} />
              </p>
              <time className="activity__time" dateTime={item.created_at}>
                {formatTime(item.created_at, i18n.language)}
              </time>
            </li>
          ))}
        </DayGroup>
      ))}
      {query.hasNextPage ? (
        <div className="activity__more">
          <Button variant="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage} data-testid="load-more">
            {query.isFetchingNextPage ? t('activity.loadingMore') : t('activity.loadMore')}
          </Button>
        </div>
      ) : null}
      {query.isFetchNextPageError ? (
        <p role="alert" className="form-error">
          {errorMessage(t, i18n.language, query.error)}
        </p>
      ) : null}
    </div>
  );
}

/** One day's lines under "Today", "Yesterday" or the date written out. */
function DayGroup({ day, language, children }: { day: string; language: string; children: ReactNode }) {
  const { t } = useTranslation();
  const titleId = useId();
  const today = new Date();
  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  const [year, month, date] = day.split('-').map(Number);
  const title =
    day === dayKey(today.toISOString())
      ? t('activity.today')
      : day === dayKey(yesterday.toISOString())
        ? t('activity.yesterday')
        : formatLongDate(new Date(year, month - 1, date), language);
  return (
    <section className="activity__day" aria-labelledby={titleId} data-testid="activity-day">
      <h2 id={titleId} className="activity__day-title">
        {title}
      </h2>
      <ol className="activity__list">{children}</ol>
    </section>
  );
}

/** A line's sentence, its actor in bold and its subject a link when it has a page. */
function Sentence({ item, actor, pathOf }: { item: Activity; actor: string; pathOf: ActivityFeedProps['pathOf'] }) {
  const { t } = useTranslation();
  const name = item.subject_name?.trim();
  const subject = name ? t(`activity.subjects.${item.subject_type}`, { name }) : t(`activity.unnamed.${item.subject_type}`);
  const linked = linkedSubject(item);
  const nodes: Record<string, ReactNode> = {
    actor: <strong className="activity__actor">{actor}</strong>,
    subject: linked ? (
      <Link to={pathOf(linked, item.subject_id)} data-testid="activity-link">
        {subject}
      </Link>
    ) : (
      <span className="activity__subject">{subject}</span>
    ),
  };
  const text = t(sentenceKey(item), { actor: `${MARK}actor${MARK}`, subject: `${MARK}subject${MARK}` });
  // Odd pieces are the names of the places: actor, subject.
  return text.split(MARK).map((piece, index) => <Fragment key={index}>{index % 2 === 1 ? (nodes[piece] ?? piece) : piece}</Fragment>);
}

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { formatDateTime } from '@/lib/dates';
import { errorMessage } from '@/lib/error-message';
import { useWorkspace } from '@/lib/workspace';

import {
  APPROVAL_STATUSES,
  approvalQueryOptions,
  commentsQueryOptions,
  useDeleteComment,
  useSetApproval,
  type Actor,
  type Comment,
  type ReviewSubject,
} from '../api/reviews';
import { splitMentions } from '../lib/mentions';

import { CommentForm } from './comment-form';

/** A member of the workspace, as the members list gives it (for mentions and their highlighting). */
export type ReviewMember = { user_id: string; email: string | null };

export type ReviewPanelProps = {
  subject: ReviewSubject;
  /** The signed-in user: their own comments can be deleted. */
  userId: string;
  /** The workspace's members (the mention picker); undefined while they load. */
  members?: readonly ReviewMember[];
  className?: string;
};

/**
 * "Comments and approval" beside a heatmap's results or a simulation's render: the approval
 * status (any member sets it, viewers included: the client who approves is usually one), then
 * the conversation, oldest first, and a box to add to it. A comment is deleted by its author,
 * or by an owner, after a confirmation. The panel lays itself out in two columns when it is
 * given the width for them (a container query), in one otherwise.
 */
export function ReviewPanel({ subject, userId, members, className }: ReviewPanelProps) {
  const { t } = useTranslation();
  const titleId = useId();
  return (
    <section className={cn('panel review-panel', className)} aria-labelledby={titleId} data-testid="review-panel">
      <h2 id={titleId} className="panel__title review-panel__title">
        {t('reviews.title')}
      </h2>
      <div className="review-panel__body">
        <ApprovalControl subject={subject} userId={userId} />
        <CommentThread subject={subject} userId={userId} members={members} />
      </div>
    </section>
  );
}

/** Who someone is in the panel: their address, "you", or a deleted account. */
function useActorName(userId: string) {
  const { t } = useTranslation();
  return (actor: Actor | null | undefined) => {
    if (!actor) return t('reviews.deletedAccount');
    const name = actor.email ?? t('reviews.noEmail');
    return actor.user_id === userId ? t('reviews.you', { name }) : name;
  };
}

/** The three states as a segmented control, and who set the current one, when. */
function ApprovalControl({ subject, userId }: { subject: ReviewSubject; userId: string }) {
  const { t, i18n } = useTranslation();
  const labelId = useId();
  const query = useQuery(approvalQueryOptions(subject));
  const change = useSetApproval(subject);
  const actorName = useActorName(userId);

  const approval = query.data;
  // The status being set shows at once; a refusal puts the old one back.
  const status = change.isPending ? change.variables : approval?.status;
  return (
    <div className="review-approval" data-testid="review-approval" data-status={approval?.status}>
      <h3 id={labelId} className="review-panel__heading">
        {t('reviews.approval.title')}
      </h3>
      {query.isPending ? <Spinner /> : null}
      {query.isError ? <QueryError error={query.error} onRetry={() => void query.refetch()} /> : null}
      {approval ? (
        <>
          <div className="review-approval__states" role="group" aria-labelledby={labelId}>
            {APPROVAL_STATUSES.map((state) => (
              <button
                key={state}
                type="button"
                className={cn('review-approval__state', `review-approval__state--${state}`)}
                aria-pressed={status === state}
                disabled={change.isPending}
                onClick={() => {
                  if (state !== approval.status) change.mutate(state);
                }}
                data-testid={`approval-${state}`}
              >
                <span className="review-approval__dot" aria-hidden="true" />
                {t(`reviews.approval.states.${state}`)}
              </button>
            ))}
          </div>
          <p className="review-approval__by" data-testid="approval-by">
            {approval.set_by !== null || approval.set_at !== null
              ? t(`reviews.approval.setBy.${approval.status}`, {
                  name: actorName(approval.set_by),
                  date: approval.set_at ? formatDateTime(approval.set_at, i18n.language) : '',
                })
              : t('reviews.approval.never')}
          </p>
        </>
      ) : null}
      {change.isError ? <Banner variant="error">{errorMessage(t, i18n.language, change.error)}</Banner> : null}
    </div>
  );
}

/** The conversation, oldest first, and the box to add to it. */
function CommentThread({ subject, userId, members }: { subject: ReviewSubject; userId: string; members?: readonly ReviewMember[] }) {
  const { t, i18n } = useTranslation();
  const headingId = useId();
  const { isOwner } = useWorkspace();
  const query = useQuery(commentsQueryOptions(subject));
  const remove = useDeleteComment(subject);
  const [deleting, setDeleting] = useState<Comment | null>(null);
  const actorName = useActorName(userId);

  const comments = query.data?.items ?? [];
  const addressOf = new Map((members ?? []).map((member) => [member.user_id, member.email]));
  /** The addresses a comment mentions, or null when one of them is unknown (every `@address` is then shown as one). */
  const mentioned = (comment: Comment) => {
    const addresses = comment.mentions.map((id) => addressOf.get(id));
    return addresses.every((address): address is string => typeof address === 'string') ? addresses : null;
  };
  return (
    <div className="review-thread" data-testid="review-comments">
      <h3 id={headingId} className="review-panel__heading">
        {t('reviews.comments.title')}
        {comments.length > 0 ? <span className="review-panel__count">{comments.length}</span> : null}
      </h3>
      {query.isPending ? <Spinner /> : null}
      {query.isError ? <QueryError error={query.error} onRetry={() => void query.refetch()} /> : null}
      {query.isSuccess && comments.length === 0 ? <p className="review-thread__empty">{t('reviews.comments.empty')}</p> : null}
      {comments.length > 0 ? (
        <ol className="review-thread__list" aria-labelledby={headingId}>
          {comments.map((comment) => {
            const mine = comment.author?.user_id === userId;
            return (
              <li key={comment.id} className={cn('review-comment', mine && 'review-comment--mine')} data-testid="comment">
                <div className="review-comment__meta">
                  <span className="review-comment__who">
                    <span className="review-comment__author" data-testid="comment-author">
                      {actorName(comment.author)}
                    </span>
                    <time className="review-comment__date" dateTime={comment.created_at}>
                      {formatDateTime(comment.created_at, i18n.language)}
                    </time>
                  </span>
                  {mine || isOwner ? (
                    <Button
                      variant="ghost"
                      size="sm"
                      className="review-comment__delete"
                      aria-label={t('reviews.comments.deleteNamed', { name: actorName(comment.author) })}
                      onClick={() => {
                        remove.reset();
                        setDeleting(comment);
                      }}
                      data-testid="delete-comment"
                    >
                      {t('common.delete')}
                    </Button>
                  ) : null}
                </div>
                <p className="review-comment__body" data-testid="comment-body">
                  {splitMentions(comment.body, mentioned(comment)).map((part, index) =>
                    part.mention ? (
                      <mark key={index} className="review-mention" data-testid="mention">
                        {part.text}
                      </mark>
                    ) : (
                      part.text
                    ),
                  )}
                </p>
              </li>
            );
          })}
        </ol>
      ) : null}
      <CommentForm subject={subject} addresses={(members ?? []).filter((m) => m.user_id !== userId).flatMap((m) => (m.email ? [m.email] : []))} />
      {deleting ? (
        <ConfirmDialog
          title={t('reviews.comments.deleteTitle')}
          confirmLabel={t('common.delete')}
          busy={remove.isPending}
          error={remove.isError ? errorMessage(t, i18n.language, remove.error) : null}
          onCancel={() => setDeleting(null)}
          onConfirm={() => remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
        >
          <p>{t('reviews.comments.deleteBody', { name: actorName(deleting.author) })}</p>
          <blockquote className="review-comment__quote">{deleting.body}</blockquote>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/label';
import { fieldErrorKey, isApiError } from '@/lib/api';
import { cn } from '@/lib/cn';
import { errorMessage } from '@/lib/error-message';

import { MAX_COMMENT_LENGTH, useAddComment, type ReviewSubject } from '../api/reviews';
import { insertMention, matchingAddresses, mentionAt } from '../lib/mentions';

/**
 * The box that adds a comment. Ctrl+Enter (⌘+Enter on a Mac) sends it. Typing `@` offers the
 * members' addresses under the box: arrows move, Enter or Tab picks, Escape closes, a click
 * picks too. The text stays until the comment is saved, so a refusal loses nothing.
 */
export function CommentForm({ subject, addresses }: { subject: ReviewSubject; addresses: readonly string[] }) {
  const { t, i18n } = useTranslation();
  const ids = { field: useId(), hint: useId(), list: useId() };
  const add = useAddComment(subject);
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  // The `@…` the picker was closed on (Escape): it stays closed until the caret leaves it.
  const [dismissed, setDismissed] = useState<number | null>(null);
  const fieldRef = useRef<HTMLTextAreaElement>(null);

  const typing = mentionAt(text, caret);
  const options = typing && typing.start !== dismissed ? matchingAddresses(addresses, typing.query) : [];
  const open = options.length > 0;
  const chosen = Math.min(active, options.length - 1);
  const trimmed = text.trim();
  // A refused body (too long) says so in the field's words; anything else in the API's.
  const fieldCode = isApiError(add.error) ? add.error.fields.body : undefined;

  const send = () => {
    if (trimmed === '' || add.isPending) return;
    add.mutate(trimmed, {
      onSuccess: () => {
        setText('');
        setCaret(0);
      },
    });
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    send();
  };
  const pick = (address: string) => {
    if (!typing) return;
    const next = insertMention(text, typing.start, caret, address);
    setText(next.text);
    setCaret(next.caret);
    setActive(0);
    const field = fieldRef.current;
    if (field) {
      field.value = next.text;
      field.focus();
      field.setSelectionRange(next.caret, next.caret);
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
      return;
    }
    if (!open) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((chosen + step + options.length) % options.length);
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      pick(options[chosen]);
    } else if (event.key === 'Escape') {
      // The picker closes; a dialog around the page does not.
      event.preventDefault();
      event.stopPropagation();
      setDismissed(typing?.start ?? null);
    }
  };
  const track = (field: HTMLTextAreaElement) => setCaret(field.selectionStart ?? field.value.length);

  return (
    <form className="review-form" onSubmit={submit} noValidate data-testid="comment-form">
      <Label htmlFor={ids.field} className="review-form__label">
        {t('reviews.comments.add')}
      </Label>
      <div className="review-form__field">
        <textarea
          ref={fieldRef}
          id={ids.field}
          className="ui-input ui-textarea review-form__input"
          value={text}
          rows={3}
          maxLength={MAX_COMMENT_LENGTH}
          placeholder={t('reviews.comments.placeholder')}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={ids.list}
          aria-activedescendant={open ? `${ids.list}-${chosen}` : undefined}
          aria-describedby={ids.hint}
          onChange={(event) => {
            setText(event.target.value);
            track(event.target);
            setActive(0);
          }}
          onSelect={(event) => track(event.currentTarget)}
          onKeyDown={onKeyDown}
          onBlur={() => setDismissed(typing?.start ?? null)}
          onFocus={() => setDismissed(null)}
          data-testid="comment-input"
        />
        <ul id={ids.list} className="review-form__mentions" role="listbox" aria-label={t('reviews.comments.mentionList')} hidden={!open}>
          {options.map((address, index) => (
            <li
              key={address}
              id={`${ids.list}-${index}`}
              role="option"
              aria-selected={index === chosen}
              className={cn('review-form__mention', index === chosen && 'review-form__mention--active')}
              // Before the textarea's blur: the click picks the address.
              onMouseDown={(event) => {
                event.preventDefault();
                pick(address);
              }}
              data-testid="mention-option"
            >
              @{address}
            </li>
          ))}
        </ul>
      </div>
      <p id={ids.hint} className="field__hint review-form__hint">
        {t('reviews.comments.hint')}
      </p>
      {add.isError ? (
        <p role="alert" className="form-error">
          {fieldCode ? t(fieldErrorKey(fieldCode)) : errorMessage(t, i18n.language, add.error)}
        </p>
      ) : null}
      <div className="form-actions">
        <Button type="submit" size="sm" disabled={trimmed === '' || add.isPending} data-testid="comment-submit">
          {add.isPending ? t('reviews.comments.sending') : t('reviews.comments.send')}
        </Button>
      </div>
    </form>
  );
}

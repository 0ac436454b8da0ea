import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';

import { Button } from '@/components/ui/button';
import { apiErrorKey, isApiError } from '@/lib/api';
import { cn } from '@/lib/cn';

import { askAssistant, isInAppHref, MAX_MESSAGE_LENGTH, type ChatLink } from '../api/chat';
import { loadConversation, saveConversation, type ChatMessage } from '../lib/conversation';

import { suggestionKeys } from './suggestions';

/** Characters left under which the counter shows. */
const COUNTER_FROM = 200;

function errorKey(error: unknown): string {
  if (isApiError(error)) {
    if (error.code === 'rate_limited') return 'chat.errors.rateLimited';
    if (error.code === 'validation_failed' && Object.values(error.fields).includes('too_long')) return 'chat.errors.tooLong';
  }
  return apiErrorKey(error);
}

/**
 * The floating assistant: a button at the bottom right opening a panel. Questions go to
 * `/api/v1/assistant/chat` with the page the user is on; answers stream in sentence by
 * sentence and carry buttons that open the items and pages they mention. The conversation
 * is kept for this tab (sessionStorage) and forgotten on sign-out.
 */
export function ChatWidget() {
  const { t, i18n } = useTranslation();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const ids = { panel: useId(), title: useId(), input: useId(), hint: useId() };
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState('');
  const [messages, setMessages] = useState<ChatMessage[]>(loadConversation);
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const logRef = useRef<HTMLOListElement>(null);
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages, open]);

  useEffect(() => {
    if (!busy) saveConversation(messages);
  }, [messages, busy]);

  // A question still streaming when the widget goes away is dropped.
  useEffect(() => () => abortRef.current?.abort(), []);

  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };

  const ask = async (question: string) => {
    const text = question.trim();
    if (!text || busy || text.length > MAX_MESSAGE_LENGTH) return;
    const history = messages
      .filter((m) => m.author === 'user' || m.error === undefined)
      .slice(-12)
      .map((m) => ({ role: m.author, content: m.text ?? '' }))
      .filter((m) => m.content.trim() !== '');
    const nextId = (messages.at(-1)?.id ?? 0) + 1;
    const answerId = nextId + 1;
    setMessages((current) => [
      ...current,
      { id: nextId, author: 'user', text },
      { id: answerId, author: 'assistant', text: '', links: [] },
    ]);
    setDraft('');
    setBusy(true);
    const controller = new AbortController();
    abortRef.current = controller;
    const update = (change: (message: ChatMessage) => ChatMessage) =>
      setMessages((current) => current.map((m) => (m.id === answerId ? change(m) : m)));
    try {
      const reply = await askAssistant(
        {
          messages: [...history, { role: 'user', content: text }],
          locale: i18n.language.startsWith('en') ? 'en' : 'fr',
          path: pathname,
        },
        {
          signal: controller.signal,
          onDelta: (piece) => update((m) => (m.author === 'assistant' && m.error === undefined ? { ...m, text: m.text + piece } : m)),
        },
      );
      update(() => ({ id: answerId, author: 'assistant', text: reply.answer, links: reply.links.filter((l) => isInAppHref(l.href)) }));
    } catch (error) {
      if (controller.signal.aborted) return;
      update(() => ({ id: answerId, author: 'assistant', error: errorKey(error) }));
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
      setBusy(false);
      inputRef.current?.focus();
    }
  };

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void ask(draft);
  };

  // Enter sends, Shift+Enter starts a new line.
  const onInputKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void ask(draft);
    }
  };

  const follow = (link: ChatLink) => {
    if (!isInAppHref(link.href)) return;
    if (`${pathname}${search}` !== link.href) void navigate(link.href);
  };

  const left = MAX_MESSAGE_LENGTH - draft.length;
  const suggestions = suggestionKeys(pathname);

  return (
    <div className="chat" data-testid="chat-widget">
      {open ? (
        <div
          id={ids.panel}
          role="dialog"
          aria-modal="false"
          aria-labelledby={ids.title}
          className="chat__panel"
          data-testid="chat-panel"
          onKeyDown={(event) => {
            if (event.key === 'Escape') close();
          }}
        >
          <header className="chat__header">
            <h2 id={ids.title} className="chat__title">
              {t('chat.title')}
            </h2>
            <Button variant="ghost" size="icon" aria-label={t('chat.close')} onClick={close} data-testid="chat-close">
              <span aria-hidden="true">×</span>
            </Button>
          </header>
          <ol
            ref={logRef}
            role="log"
            aria-live="polite"
            aria-relevant="additions text"
            aria-busy={busy}
            aria-label={t('chat.messages')}
            className="chat__messages"
            data-testid="chat-messages"
          >
            <li className="chat__message chat__message--assistant" data-author="assistant">
              <span className="visually-hidden">{t('chat.title')}: </span>
              {t('chat.welcome')}
            </li>
            {messages.map((message) => (
              <li
                key={message.id}
                className={cn(
                  'chat__message',
                  `chat__message--${message.author}`,
                  message.author === 'assistant' && message.error !== undefined && 'chat__message--error',
                )}
                data-author={message.author}
                data-testid={message.author === 'assistant' ? 'chat-answer' : 'chat-question'}
              >
                <span className="visually-hidden">{message.author === 'user' ? t('chat.you') : t('chat.title')}: </span>
                {message.author === 'assistant' && message.error !== undefined ? (
                  // The key comes from errorKey(): one of the chat or API error messages.
                  t(message.error as 'apiErrors.generic')
                ) : message.text === '' ? (
                  <span className="chat__typing" data-testid="chat-typing">
                    {t('chat.thinking')}
                  </span>
                ) : (
                  <span className="chat__text">{message.text}</span>
                )}
                {message.author === 'assistant' && message.links && message.links.length > 0 ? (
                  <span className="chat__links" role="group" aria-label={t('chat.links')}>
                    {message.links.map((link) => (
                      <button
                        key={link.href}
                        type="button"
                        className="chat__link"
                        onClick={() => follow(link)}
                        data-testid="chat-link"
                        data-href={link.href}
                      >
                        {link.label}
                      </button>
                    ))}
                  </span>
                ) : null}
              </li>
            ))}
          </ol>
          {suggestions.length > 0 && !busy ? (
            <div className="chat__suggestions" role="group" aria-label={t('chat.suggestionsLabel')} data-testid="chat-suggestions">
              {suggestions.map((key) => (
                <button key={key} type="button" className="chat__suggestion" onClick={() => void ask(t(key))}>
                  {t(key)}
                </button>
              ))}
            </div>
          ) : null}
          <form className="chat__form" onSubmit={send}>
            <label htmlFor={ids.input} className="visually-hidden">
              {t('chat.inputLabel')}
            </label>
            <textarea
              ref={inputRef}
              id={ids.input}
              className="ui-input chat__input"
              placeholder={t('chat.placeholder')}
              autoComplete="off"
              rows={1}
              maxLength={MAX_MESSAGE_LENGTH}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              onKeyDown={onInputKey}
              aria-describedby={left <= COUNTER_FROM ? ids.hint : undefined}
              data-testid="chat-input"
            />
            <Button type="submit" disabled={busy || draft.trim() === ''} data-testid="chat-send">
              {t('chat.send')}
            </Button>
            {left <= COUNTER_FROM ? (
              <p id={ids.hint} className="chat__counter" aria-live="polite">
                {t('chat.charactersLeft', { count: left })}
              </p>
            ) : null}
          </form>
        </div>
      ) : null}
      <Button
        ref={toggleRef}
        className="chat__toggle"
        size="icon"
        aria-label={t('chat.title')}
        aria-expanded={open}
        aria-controls={open ? ids.panel : undefined}
        onClick={() => (open ? close() : setOpen(true))}
        data-testid="chat-toggle"
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
          <path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" />
        </svg>
      </Button>
    </div>
  );
}

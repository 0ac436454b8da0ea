import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { cn } from '@/lib/cn';

type Message =
  | { id: number; author: 'assistant'; key: 'chat.welcome' | 'chat.unavailable' }
  | { id: number; author: 'user'; text: string };

/**
 * The floating assistant: a button at the bottom right opening a small panel.
 * Answers come in a later release; meanwhile every question gets a polite
 * "not available yet". Messages from the assistant are stored as translation
 * keys, so switching language re-translates the whole conversation.
 */
export function ChatWidget() {
  const { t } = useTranslation();
  const ids = { panel: useId(), title: useId(), input: useId() };
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState('');
  const [messages, setMessages] = useState<Message[]>([{ id: 0, author: 'assistant', key: 'chat.welcome' }]);
  const inputRef = useRef<HTMLInputElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const logRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  useEffect(() => {
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [messages, open]);

  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return;
    setMessages((current) => [
      ...current,
      { id: current.length, author: 'user', text },
      { id: current.length + 1, author: 'assistant', key: 'chat.unavailable' },
    ]);
    setDraft('');
  };

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
          <ol ref={logRef} role="log" aria-live="polite" aria-label={t('chat.messages')} className="chat__messages" data-testid="chat-messages">
            {messages.map((message) => (
              <li
                key={message.id}
                className={cn('chat__message', `chat__message--${message.author}`)}
                data-author={message.author}
              >
                <span className="visually-hidden">{message.author === 'user' ? t('chat.you') : t('chat.title')}: </span>
                {message.author === 'user' ? message.text : t(message.key)}
              </li>
            ))}
          </ol>
          <form className="chat__form" onSubmit={send}>
            <label htmlFor={ids.input} className="visually-hidden">
              {t('chat.inputLabel')}
            </label>
            <Input
              ref={inputRef}
              id={ids.input}
              className="chat__input"
              placeholder={t('chat.placeholder')}
              autoComplete="off"
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              data-testid="chat-input"
            />
            <Button type="submit" disabled={draft.trim() === ''} data-testid="chat-send">
              {t('chat.send')}
            </Button>
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
